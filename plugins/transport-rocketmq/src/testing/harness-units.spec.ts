import { describe, expect, it } from 'vitest';
import { signExtFields } from './acl-signature';
import { renderBrokerConfig, renderNamesrvConfig, FAST_DELAY_LEVELS } from './broker-config';
import { assertDiskHasRoom, diskUsedRatio } from './disk-usage';
import { parseFastjson } from './fastjson-text';
import { findFreePortGroup, isPortFree } from './free-port';
import { findJavaToolchain, parseJavaVersion } from './java-toolchain';
import { rocketMqJvmArguments } from './jvm-arguments';
import { decodeProbeFrames, encodeProbeRequest } from './probe-frame.codec';
import { renderProxyConfig } from './proxy-config';
import { renderRuntimePom } from './rocketmq-provisioner';
import { RocketMqHarnessError } from './rocketmq-harness.error';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { existsSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

/** The JDK home of the `java` on PATH (bin/java's grandparent), if any. */
function javaHomeOnPath(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'java');
    if (existsSync(candidate)) return dirname(dirname(realpathSync(candidate)));
  }
  return undefined;
}

describe('replica and controller configuration', () => {
  const base = {
    clusterName: 'C',
    brokerName: 'broker-a',
    listenPort: 20000,
    namesrvAddr: '127.0.0.1:9876',
    storeRoot: '/s',
    rocketmqHome: '/h',
  };
  const props = (text: string) =>
    Object.fromEntries(
      text
        .trim()
        .split('\n')
        .map((l) => l.split('=') as [string, string]),
    );

  it('classic: the master is brokerId 0 (SYNC_MASTER waits for its slave: inSyncReplicas 2), the slave 1, both serve reads', () => {
    const master = props(
      renderBrokerConfig({
        ...base,
        member: { mode: 'classic', brokerId: 0, replication: 'SYNC', slaveReadEnable: true },
      }),
    );
    expect(master).toMatchObject({
      brokerId: '0',
      brokerRole: 'SYNC_MASTER',
      inSyncReplicas: '2',
      slaveReadEnable: 'true',
    });
    const slave = props(
      renderBrokerConfig({
        ...base,
        member: { mode: 'classic', brokerId: 1, replication: 'SYNC', slaveReadEnable: true },
      }),
    );
    expect(slave).toMatchObject({ brokerId: '1', brokerRole: 'SLAVE', slaveReadEnable: 'true' });
    expect(slave.inSyncReplicas).toBeUndefined();
    expect(
      props(
        renderBrokerConfig({
          ...base,
          member: { mode: 'classic', brokerId: 0, replication: 'ASYNC', slaveReadEnable: false },
        }),
      ),
    ).toMatchObject({ brokerRole: 'ASYNC_MASTER', slaveReadEnable: 'false' });
  });

  it('controller mode: no fixed id or role, the controller address, its own epoch and identity files, all-ack in the sync-state set', () => {
    const conf = props(
      renderBrokerConfig({
        ...base,
        member: { mode: 'controller', controllerAddr: '127.0.0.1:9878', slaveReadEnable: true },
      }),
    );
    expect(conf).toMatchObject({
      enableControllerMode: 'true',
      controllerAddr: '127.0.0.1:9878',
      brokerId: '-1',
      brokerRole: 'SLAVE',
      storePathEpochFile: '/s/epochFileCheckpoint',
      storePathBrokerIdentity: '/s/brokerIdentity',
      allAckInSyncStateSet: 'true',
    });
    const namesrv = props(
      renderNamesrvConfig({ listenPort: 9876, rocketmqHome: '/h', controller: { port: 9878, storePath: '/c' } }),
    );
    expect(namesrv).toMatchObject({
      enableControllerInNamesrv: 'true',
      controllerDLegerPeers: 'n0-127.0.0.1:9878',
      controllerDLegerSelfId: 'n0',
      controllerStorePath: '/c',
    });
    expect(
      props(renderNamesrvConfig({ listenPort: 9876, rocketmqHome: '/h' })).enableControllerInNamesrv,
    ).toBeUndefined();
  });
});

describe('harness pieces that need no Java', () => {
  it('signs like RocketMQ AclClientRPCHook (vector from the 5.3.3 Java client)', () => {
    // Java: AclClientRPCHook(SessionCredentials("mqkitAdmin","mqkit-Secret-1")) on a request with ext
    // {b:TopicTest, a:pg, g:1700000000000} and body "héllo body" gave Signature=QHUgJl2Zo50710RV6VnEiVba17s=.
    const signed = signExtFields({ b: 'TopicTest', a: 'pg', g: '1700000000000' }, Buffer.from('héllo body', 'utf8'), {
      accessKey: 'mqkitAdmin',
      secretKey: 'mqkit-Secret-1',
    });
    expect(signed).toEqual({
      AccessKey: 'mqkitAdmin',
      a: 'pg',
      b: 'TopicTest',
      g: '1700000000000',
      Signature: 'QHUgJl2Zo50710RV6VnEiVba17s=',
    });
  });

  it('parses fastjson bodies with unquoted integer keys, leaving strings and arrays alone', () => {
    const text = '{"brokerAddrTable":{"b":{"brokerAddrs":{0:"127.0.0.1:1",-1:"x"},"s":"{0:\\"no\\"}"}},"list":[1, 2]}';
    expect(parseFastjson(text)).toEqual({
      brokerAddrTable: { b: { brokerAddrs: { '0': '127.0.0.1:1', '-1': 'x' }, s: '{0:"no"}' } },
      list: [1, 2],
    });
  });

  it('round-trips a frame and keeps a partial one for later', () => {
    const frame = encodeProbeRequest(106, 7, { k: 'v' }, Buffer.from('body'));
    const { frames, rest } = decodeProbeFrames(Buffer.concat([frame, frame.subarray(0, 5)]));
    expect(frames).toHaveLength(1);
    expect(frames[0]).toMatchObject({ code: 106, opaque: 7, flag: 0, extFields: { k: 'v' } });
    expect(frames[0]!.body.toString()).toBe('body');
    expect(rest).toHaveLength(5);
  });

  it('reads Java versions in both numbering schemes', () => {
    expect(parseJavaVersion('openjdk version "17.0.15" 2025-04-15')).toBe(17);
    expect(parseJavaVersion('java version "1.8.0_402"')).toBe(8);
    expect(parseJavaVersion('openjdk version "21" 2023-09-19')).toBe(21);
    expect(parseJavaVersion('nothing')).toBeUndefined();
  });

  it('says what to install when Java or Maven is missing', () => {
    expect(() => findJavaToolchain({ JAVA_HOME: '/nonexistent-jdk', PATH: process.env.PATH })).toThrow(
      expect.objectContaining({
        failure: 'java-missing',
        message: expect.stringContaining('apt-get install openjdk-17-jdk-headless maven'),
      }),
    );
    const javaHome = javaHomeOnPath();
    if (javaHome) {
      // Java found through JAVA_HOME, but no mvn on an empty PATH.
      expect(() => findJavaToolchain({ JAVA_HOME: javaHome, PATH: '/nonexistent' })).toThrow(
        expect.objectContaining({
          failure: 'maven-missing',
          message: expect.stringContaining('MQKIT_ROCKETMQ_NAMESRV'),
        }),
      );
    }
  });

  it('writes the fast-test broker.conf and ACL 2.0 keys', () => {
    const conf = renderBrokerConfig({
      clusterName: 'C',
      brokerName: 'broker-a',
      listenPort: 20911,
      namesrvAddr: '127.0.0.1:20876',
      storeRoot: '/s',
      rocketmqHome: '/h',
      acl: { accessKey: 'ak', secretKey: 'sk' },
      overrides: { autoCreateTopicEnable: 'true' },
    });
    const lines = conf.trim().split('\n');
    const expected = [
      'listenPort=20911',
      'brokerIP1=127.0.0.1',
      'bindAddress=127.0.0.1',
      'timerWheelEnable=true',
      'mappedFileSizeTimerLog=8388608',
      'enablePropertyFilter=true',
      'traceTopicEnable=true',
      'transactionCheckMax=3',
      'mappedFileSizeCommitLog=67108864',
      'authenticationEnabled=true',
      'initAuthenticationUser={"username":"ak","password":"sk"}',
      'autoCreateTopicEnable=true',
      `messageDelayLevel=${FAST_DELAY_LEVELS}`,
    ];
    for (const line of expected) {
      expect(lines).toContain(line);
    }
    expect(lines).not.toContain('autoCreateTopicEnable=false');
    expect(FAST_DELAY_LEVELS.split(' ')).toHaveLength(18);
  });

  it('writes a cluster-mode rmq-proxy.json on loopback, with ACL and TLS keys only for such a cluster', () => {
    const input = { clusterName: 'C', namesrvAddr: '127.0.0.1:9876', remotingPort: 20001, grpcPort: 20002 };
    const plain = JSON.parse(renderProxyConfig(input)) as Record<string, unknown>;
    expect(plain).toMatchObject({
      rocketMQClusterName: 'C',
      namesrvAddr: '127.0.0.1:9876',
      proxyMode: 'cluster',
      remotingListenPort: 20001,
      grpcServerPort: 20002,
      localServeAddr: '127.0.0.1',
      remotingAccessAddr: '127.0.0.1',
    });
    expect(plain.authenticationEnabled).toBeUndefined();
    expect(plain.tlsCertPath).toBeUndefined();
    const withTls = JSON.parse(renderProxyConfig({ ...input, tls: { certPath: '/c.pem', keyPath: '/k.pem' } }));
    expect(withTls).toMatchObject({ tlsTestModeEnable: false, tlsCertPath: '/c.pem', tlsKeyPath: '/k.pem' });
    const secured = JSON.parse(
      renderProxyConfig({ ...input, acl: { accessKey: 'ak', secretKey: 'sk' }, overrides: { grpcServerPort: 1 } }),
    ) as Record<string, unknown>;
    expect(secured).toMatchObject({
      enableAclRpcHookForClusterMode: true,
      innerClientAuthenticationCredentials: '{"accessKey":"ak","secretKey":"sk"}',
      authenticationEnabled: true,
      authorizationEnabled: true,
      grpcServerPort: 1,
    });
  });

  it('writes a throwaway pom with exactly the asked artifacts', () => {
    const pom = renderRuntimePom('5.3.3', ['rocketmq-proxy'], 'rocketmq-proxy');
    expect(pom).toContain('<artifactId>rocketmq-proxy</artifactId><version>5.3.3</version></dependency>');
    expect(pom).toContain('<artifactId>rocketmq-proxy</artifactId><version>5.3.3</version>\n  <packaging>');
    expect(pom.match(/<dependency>/g)).toHaveLength(1);
    expect(renderRuntimePom('5.3.3').match(/<dependency>/g)).toHaveLength(3);
  });

  it('turns TLS off unless asked, and enforces it with our certificate when asked', () => {
    const base = { heapMb: 128, home: '/h', logbackFile: '/l.xml' };
    expect(rocketMqJvmArguments(base)).toContain('-Dtls.server.mode=disabled');
    const tls = rocketMqJvmArguments({
      ...base,
      tls: { certPath: '/c.pem', keyPath: '/k.pem' },
      lockMaxLiveTimeMs: 5000,
    });
    expect(tls).toEqual(
      expect.arrayContaining([
        '-Dtls.server.mode=enforcing',
        '-Dtls.server.certPath=/c.pem',
        '-Dtls.enable=true',
        '-Drocketmq.broker.rebalance.lockMaxLiveTime=5000',
      ]),
    );
  });

  it('measures the disk like df and refuses a store disk over the limit', async () => {
    const ratio = await diskUsedRatio(tmpdir());
    expect(ratio).toBeGreaterThan(0);
    expect(ratio).toBeLessThan(1);
    await expect(assertDiskHasRoom(tmpdir(), ratio / 2)).rejects.toMatchObject({ failure: 'disk-full' });
    // Other processes write to the same disk between the two reads: the ratio it returns is close, not equal.
    const allowed = await assertDiskHasRoom(tmpdir(), 1);
    expect(Math.abs(allowed - ratio)).toBeLessThan(0.01);
    await expect(assertDiskHasRoom(tmpdir(), 0)).rejects.toBeInstanceOf(RocketMqHarnessError);
  });

  it('picks a base port whose neighbours are free, and sees a bound port as taken', async () => {
    const base = await findFreePortGroup([-2, 0, 1]);
    for (const port of [base - 2, base, base + 1]) expect(await isPortFree(port)).toBe(true);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(base, '127.0.0.1', resolve));
    try {
      expect(await isPortFree(base)).toBe(false);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
