import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import { readClusterInfo } from './cluster-readiness';
import { isPortFree } from './free-port';
import { isProcessAlive } from './process-control';
import { sendProbeRequest } from './remoting-probe';
import type { RocketMqBrokerInfo, RocketMqCluster } from './rocketmq-cluster';
import { startRocketMqCluster } from './start-rocketmq-cluster';
import { createTopic } from './topic-admin';

const SEND_MESSAGE_V2 = 310;
const PULL_MESSAGE = 11;
const GET_MAX_OFFSET = 30;
const LOCK_BATCH_MQ = 41;
const LOCK_LIFETIME_MS = 3_000;

/** A SEND_MESSAGE_V2 header (letters per SendMessageRequestHeaderV2) for one message. */
function sendHeader(topic: string): Record<string, string> {
  return {
    a: uniqueName('pg'),
    b: topic,
    c: 'TBW102',
    d: '4',
    e: '0',
    f: '0',
    g: String(Date.now()),
    h: '0',
    j: '0',
    k: 'false',
  };
}

// Needs Java 17 and Maven (the first run downloads RocketMQ into ~/.m2 and the mqkit cache).
describe('startRocketMqCluster (real RocketMQ)', () => {
  let cluster: RocketMqCluster;

  beforeAll(async () => {
    cluster = await startRocketMqCluster({ lockMaxLiveTimeMs: LOCK_LIFETIME_MS });
  }, 300_000);

  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);

  it('starts a name server and broker-a and broker-b on loopback, all answering the protocol', async () => {
    expect(cluster.namesrvAddr).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(cluster.brokers.map((b) => b.name)).toEqual(['broker-a', 'broker-b']);
    const registered = await readClusterInfo(cluster.namesrvAddr);
    for (const broker of cluster.brokers) {
      expect(broker.pid).toBeGreaterThan(0);
      expect(registered).toContainEqual({
        brokerName: broker.name,
        clusterName: 'DefaultCluster',
        addr: broker.addr,
        addrs: { 0: broker.addr },
      });
      expect((await sendProbeRequest(broker.addr, { code: 28 })).code).toBe(0);
      // The broker holds listenPort − 2 (fast server) and + 1 (HA) as well.
      const port = Number(broker.addr.split(':')[1]);
      expect(await isPortFree(port - 2)).toBe(false);
      expect(await isPortFree(port + 1)).toBe(false);
    }
  });

  it('runs brokers with autoCreateTopicEnable=false; a created topic takes sends and pulls', async () => {
    const [first, second] = cluster.brokers as [RocketMqBrokerInfo, RocketMqBrokerInfo];
    const missing = await sendProbeRequest(first.addr, {
      code: SEND_MESSAGE_V2,
      extFields: sendHeader(uniqueName('nope')),
      body: Buffer.from('x'),
    });
    expect(missing.code).toBe(17); // TOPIC_NOT_EXIST
    const topic = uniqueName('harness');
    await createTopic(cluster, topic, { queues: 2 });
    const sent = await sendProbeRequest(second.addr, {
      code: SEND_MESSAGE_V2,
      extFields: sendHeader(topic),
      body: Buffer.alloc(1024, 1),
    });
    expect(sent.code).toBe(0);
    // sysFlag 4 = SUBSCRIPTION (the expression travels in the header); no suspend, so an empty queue answers at once.
    const pull = {
      consumerGroup: uniqueName('g'),
      topic,
      queueId: '0',
      queueOffset: '0',
      maxMsgNums: '32',
      sysFlag: '4',
    };
    const pulled = await sendProbeRequest(second.addr, {
      code: PULL_MESSAGE,
      extFields: {
        ...pull,
        commitOffset: '0',
        suspendTimeoutMillis: '0',
        subscription: '*',
        subVersion: '0',
        expressionType: 'TAG',
      },
    });
    expect(pulled.code).toBe(0);
    expect(pulled.extFields.nextBeginOffset).toBe('1');
  });

  it('applies the short delay levels: a level-3 message (10 s by default) arrives after about 1 s', async () => {
    const topic = uniqueName('delay');
    await createTopic(cluster, topic, { queues: 1 });
    const broker = cluster.brokers[0]!.addr;
    const maxOffset = async (): Promise<string | undefined> =>
      (await sendProbeRequest(broker, { code: GET_MAX_OFFSET, extFields: { topic, queueId: '0' } })).extFields.offset;
    // properties: key U+0001 value U+0002 (docs/remoting-protocol.md#properties-string); DELAY=3 is the third delay
    // level.
    const sentAt = Date.now();
    const delayed = { ...sendHeader(topic), i: 'DELAY\u00013\u0002' };
    const sent = await sendProbeRequest(broker, {
      code: SEND_MESSAGE_V2,
      extFields: delayed,
      body: Buffer.from('later'),
    });
    expect(sent.code).toBe(0);
    expect(await maxOffset()).toBe('0'); // parked in SCHEDULE_TOPIC_XXXX, not yet in the topic
    await waitFor(async () => (await maxOffset()) === '1', {
      timeoutMs: 8_000,
      intervalMs: 50,
      message: 'delayed message in its topic',
    });
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(900);
  });

  it('applies the short broker lock lifetime: another client gets an unrenewed queue lock after it', async () => {
    const topic = uniqueName('lock');
    await createTopic(cluster, topic, { queues: 1 });
    const broker = cluster.brokers[0]!;
    const group = uniqueName('g');
    const lock = async (clientId: string): Promise<number> => {
      const body = {
        consumerGroup: group,
        clientId,
        onlyThisBroker: true,
        mqSet: [{ topic, brokerName: broker.name, queueId: 0 }],
      };
      const response = await sendProbeRequest(broker.addr, {
        code: LOCK_BATCH_MQ,
        body: Buffer.from(JSON.stringify(body)),
      });
      expect(response.code).toBe(0);
      return (JSON.parse(response.body.toString()) as { lockOKMQSet: unknown[] }).lockOKMQSet.length;
    };
    expect(await lock('client-1')).toBe(1);
    const lockedAt = Date.now();
    expect(await lock('client-2')).toBe(0);
    await waitFor(async () => (await lock('client-2')) === 1, {
      timeoutMs: LOCK_LIFETIME_MS + 5_000,
      intervalMs: 200,
      message: 'lock expiry',
    });
    // RocketMQ's default is 60 s; expiry is checked on each lock attempt, so it shows right after the lifetime.
    expect(Date.now() - lockedAt).toBeGreaterThanOrEqual(LOCK_LIFETIME_MS - 500);
    expect(await lock('client-1')).toBe(0);
  }, 20_000);

  it('stops a broker by pid and restarts it on the same port and store', async () => {
    const topic = uniqueName('restart');
    await createTopic(cluster, topic, { queues: 1 });
    const before = cluster.brokers.find((b) => b.name === 'broker-b')!;
    await cluster.stopBroker('broker-b');
    expect(isProcessAlive(before.pid!)).toBe(false);
    expect(cluster.brokers.find((b) => b.name === 'broker-b')!.pid).toBeUndefined();
    expect((await readClusterInfo(cluster.namesrvAddr)).map((b) => b.brokerName)).toEqual(['broker-a']);

    await cluster.startBroker('broker-b');
    const after = cluster.brokers.find((b) => b.name === 'broker-b')!;
    expect(after.addr).toBe(before.addr);
    expect(after.pid).not.toBe(before.pid);
    // The topic made before the restart is still in broker-b's store: a send to it succeeds.
    const sent = await sendProbeRequest(after.addr, {
      code: SEND_MESSAGE_V2,
      extFields: sendHeader(topic),
      body: Buffer.from('again'),
    });
    expect(sent.code).toBe(0);
  }, 240_000);

  it('stop() ends every process and removes the cluster folder', async () => {
    const pids = cluster.pids();
    expect(pids).toHaveLength(3);
    const folder = dirname(cluster.descriptorFile!);
    await cluster.stop();
    for (const pid of pids) expect(isProcessAlive(pid)).toBe(false);
    expect(existsSync(folder)).toBe(false);
    expect(cluster.pids()).toEqual([]);
  }, 60_000);
});
