import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendProbeRequest } from './remoting-probe';
import type { RocketMqCluster } from './rocketmq-cluster';
import { startRocketMqCluster } from './start-rocketmq-cluster';
import { startRocketMqProxy } from './start-rocketmq-proxy';
import { uniqueName } from '@mqkit/core/testing';
import { createTopic } from './topic-admin';

const GET_BROKER_RUNTIME_INFO = 28;
const NO_PERMISSION = 16;
const GET_ROUTEINFO_BY_TOPIC = 105;

// One cluster with both ACL 2.0 and enforced TLS, to keep to one start per file.
describe('startRocketMqCluster with ACL and TLS (real RocketMQ)', () => {
  let cluster: RocketMqCluster;
  const acl = { accessKey: 'mqkitAdmin', secretKey: `s-${uniqueName('k')}` };

  beforeAll(async () => {
    cluster = await startRocketMqCluster({ brokers: ['broker-a'], acl, tls: true });
  }, 300_000);

  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);

  it('refuses plain TCP on the name server and the broker', async () => {
    const broker = cluster.brokers[0]!;
    await expect(sendProbeRequest(cluster.namesrvAddr, { code: 106 }, { timeoutMs: 3000 })).rejects.toThrow();
    await expect(
      sendProbeRequest(broker.addr, { code: GET_BROKER_RUNTIME_INFO }, { timeoutMs: 3000 }),
    ).rejects.toThrow();
  });

  it('serves TLS with the harness certificate, verified against it', async () => {
    expect(cluster.tlsCertificate).toContain('BEGIN CERTIFICATE');
    const response = await sendProbeRequest(
      cluster.namesrvAddr,
      { code: 106 },
      { tls: { ca: cluster.tlsCertificate } },
    );
    expect(response.code).toBe(0);
  });

  it('rejects unsigned and wrongly signed broker requests and accepts signed ones', async () => {
    const broker = cluster.brokers[0]!;
    const tls = { ca: cluster.tlsCertificate };
    const unsigned = await sendProbeRequest(broker.addr, { code: GET_BROKER_RUNTIME_INFO }, { tls });
    expect(unsigned.code).toBe(NO_PERMISSION);
    const wrong = await sendProbeRequest(
      broker.addr,
      { code: GET_BROKER_RUNTIME_INFO },
      { tls, credentials: { ...acl, secretKey: 'wrong' } },
    );
    expect(wrong).toMatchObject({ code: NO_PERMISSION, remark: expect.stringContaining('signature') });
    const signed = await sendProbeRequest(broker.addr, { code: GET_BROKER_RUNTIME_INFO }, { tls, credentials: acl });
    expect(signed.code).toBe(0);
    // Admin requests go through the same check: creating a topic works signed.
    await createTopic(cluster, uniqueName('secure'), { queues: 1 });
  });

  it('puts a proxy in front that serves TLS with the cluster certificate and authenticates clients itself', async () => {
    const proxy = await startRocketMqProxy(cluster);
    try {
      const topic = uniqueName('secureproxy');
      await createTopic(cluster, topic, { queues: 1 });
      const route = { code: GET_ROUTEINFO_BY_TOPIC, extFields: { topic, acceptStandardJsonOnly: 'true' } };
      const tls = { ca: cluster.tlsCertificate };
      await expect(sendProbeRequest(proxy.remotingAddr, route, { timeoutMs: 3000 })).rejects.toThrow();
      const signed = await sendProbeRequest(proxy.remotingAddr, route, { tls, credentials: acl });
      expect(signed.code).toBe(0);
      expect(signed.body.toString('utf8')).toContain(`"0":"${proxy.remotingAddr}"`);
      // The proxy's own authentication answers SYSTEM_ERROR (1) where a broker answers NO_PERMISSION.
      const unsigned = await sendProbeRequest(proxy.remotingAddr, route, { tls });
      expect(unsigned).toMatchObject({ code: 1, remark: 'username cannot be null.' });
      const wrong = await sendProbeRequest(proxy.remotingAddr, route, {
        tls,
        credentials: { ...acl, secretKey: 'wrong' },
      });
      expect(wrong).toMatchObject({ code: 1, remark: 'check signature failed.' });
    } finally {
      await proxy.stop();
    }
  }, 180_000);
});
