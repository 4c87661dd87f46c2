import { createProducer, type ConsumeContext, type Message } from '@mqkit/core';
import { Deliveries, uniqueName, waitFor } from '@mqkit/core/testing';
import { replicaName, startRocketMqCluster, type RocketMqCluster } from '@mqkit/transport-rocketmq/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerClass } from '../support/fixtures';
import { RocketMqHarness } from '../support/rocketmq-fixtures';

// One broker name with a SYNC_MASTER and its slave (slaveReadEnable). accessMessageInMemoryMaxRatio=0 makes the
// master count any backlog as "not in memory", so it sends a lagging consumer's pulls to the slave.
let cluster: RocketMqCluster;
let harness: RocketMqHarness;
const SLAVE = replicaName('broker-a');

beforeAll(async () => {
  cluster = await startRocketMqCluster({
    brokers: ['broker-a'],
    replicas: { replication: 'SYNC' },
    brokerConfig: { accessMessageInMemoryMaxRatio: '0' },
  });
  harness = new RocketMqHarness(cluster);
}, 240_000);
afterAll(async () => {
  await harness?.close();
  await cluster?.stop();
}, 60_000);

describe('a master and its slave (SYNC_MASTER, slaveReadEnable)', () => {
  it('follows suggestWhichBrokerId: a lagging consumer reads from the slave, and nothing is lost', async () => {
    const topic = uniqueName('replica');
    const group = uniqueName('g');
    await harness.createTopic(topic, 2);
    await harness.produce(topic, 2_000);
    const seen = new Deliveries();
    const Handler = consumerClass(
      { group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
      (m: Message<{ seq: number }>) => seen.record(m.payload.seq),
    );
    const servedBy: number[] = [];
    const app = await harness.app([Handler], { instanceName: uniqueName('m') });
    app.on('rocketmq.pull-broker', (e) => void (e.mq.topic === topic && servedBy.push(e.brokerId)));
    await waitFor(() => seen.unique === 2_000, { timeoutMs: 60_000, message: () => `${seen.unique}/2000` });
    expect(seen.missing(2_000)).toEqual([]);
    expect(servedBy).toContain(1);
  }, 120_000);

  it('SYNC_MASTER: with the slave gone a send is stored but answered FLUSH_SLAVE_TIMEOUT (5.3.3 never answers SLAVE_NOT_AVAILABLE)', async () => {
    const topic = uniqueName('sync');
    await harness.createTopic(topic, 1);
    // The master waits slaveTimeout (3 s) for the slave before it answers: the client waits longer.
    const producer = await createProducer({
      transport: harness.transport(),
      group: uniqueName('p'),
      profile: 'fast',
      sendMsgTimeout: 15_000,
    });
    try {
      expect((await producer.send({ topic, payload: { seq: 0 } })).status).toBe('SEND_OK');
      await cluster.stopBroker(SLAVE, { force: true });
      const result = await producer.send({ topic, payload: { seq: 1 } });
      expect(result.status).toBe('FLUSH_SLAVE_TIMEOUT');
      // Stored all the same: it is consumed.
      const seen = new Deliveries();
      const Handler = consumerClass(
        { group: uniqueName('g'), topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
        (m: Message<{ seq: number }>) => seen.record(m.payload.seq),
      );
      await harness.app([Handler], { instanceName: uniqueName('s') });
      await waitFor(() => seen.unique === 2, { timeoutMs: 30_000 });
    } finally {
      await producer.stop();
      await cluster.startBroker(SLAVE);
    }
  }, 120_000);

  it('with the master down the slave serves the queues, commits go to it, and after the master is back nothing is consumed twice', async () => {
    const topic = uniqueName('failover');
    const group = uniqueName('g');
    await harness.createTopic(topic, 2);
    await harness.produce(topic, 1_000);
    const seen = new Deliveries();
    let gate: Promise<void> | undefined;
    // Small caches, so that what is consumed after the master dies must be pulled after it died.
    const Handler = consumerClass(
      { group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', consumeThreadMax: 2, pullThresholdForQueue: 20 },
      async (m: Message<{ seq: number }>, _ctx: ConsumeContext) => {
        await gate;
        seen.record(m.payload.seq);
      },
    );
    const app = await harness.app([Handler], { instanceName: uniqueName('f') });
    await waitFor(() => seen.unique >= 200, { timeoutMs: 30_000 });
    // Hold consumption while the master dies.
    let open!: () => void;
    gate = new Promise<void>((resolve) => (open = resolve));
    await cluster.stopBroker('broker-a', { force: true });
    const cachedAtKill = app
      .consumer(group)
      .status()
      .queues.reduce((n, q) => n + q.cachedCount, 0);
    const beforeOutage = seen.unique;
    open();
    gate = undefined;
    // SYNC replication: every acknowledged message is on the slave, which serves them now.
    await waitFor(() => seen.unique === 1_000, {
      timeoutMs: 60_000,
      message: () => `${seen.unique}/1000 with the master down (from ${beforeOutage})`,
    });
    // More was consumed than was cached when the master died: the rest came from the slave.
    expect(seen.unique - beforeOutage).toBeGreaterThan(cachedAtKill + 100);
    // Let a periodic persist reach the slave.
    await waitFor(
      () =>
        app
          .consumer(group)
          .status()
          .queues.filter((q) => q.mq.topic === topic)
          .every((q) => q.persistedOffset === q.committableOffset),
      { timeoutMs: 20_000 },
    );
    await cluster.startBroker('broker-a');
    await harness.produce(topic, 500, { from: 1_000 });
    await waitFor(() => seen.unique === 1_500, {
      timeoutMs: 60_000,
      message: () => `${seen.unique}/1500 after the master is back`,
    });
    expect(seen.missing(1_500)).toEqual([]);
    // The member kept its queues through the outage and went on from what it had consumed: the master's older
    // offsets never sent it back (Java's client behaves the same; its slave-side commits are overwritten by the
    // master's on the next slave sync, and only live consumers' re-sent offsets repair them).
    expect(seen.duplicates).toBe(0);
  }, 180_000);
});
