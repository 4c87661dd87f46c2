import {
  BrokerError,
  ConfigurationError,
  compareMessageQueues,
  ConsumerNotOnlineError,
  MessageNotFoundError,
  createAdmin,
  createProducer,
  createPullConsumer,
  type Admin,
  type MessageQueue,
  type SendResult,
  type StandaloneProducer,
  type TransportPlugin,
} from '@mqkit/core';
import { Deliveries, uniqueName, waitFor } from '@mqkit/core/testing';
import { memoryTransport } from '@mqkit/transport-memory';
import { fastBroker } from '@mqkit/transport-memory/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Harness, consumerClass } from '../support/fixtures';

let harness: Harness;
let admin: Admin;
let producer: StandaloneProducer;
const closers: Array<() => Promise<unknown>> = [];

beforeEach(async () => {
  // Two brokers, as the real test cluster has: every answer merges both.
  harness = new Harness(fastBroker({ brokerNames: ['broker-a', 'broker-b'] }));
  admin = await createAdmin({
    transport: memoryTransport({ broker: harness.broker }),
    instanceName: uniqueName('admin'),
  });
  producer = await createProducer({
    transport: memoryTransport({ broker: harness.broker }),
    group: uniqueName('producer'),
    instanceName: uniqueName('producer'),
  });
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await producer?.stop();
  await admin?.close();
  await harness?.close();
});

/** Sends `counts[i]` messages to the i-th queue, with keys `k<i>-<n>`, and returns the results in send order. */
async function fill(queues: readonly MessageQueue[], counts: readonly number[]): Promise<SendResult[]> {
  const results: SendResult[] = [];
  for (const [i, mq] of queues.entries()) {
    for (let n = 0; n < counts[i]!; n++)
      results.push(
        await producer.send({ topic: mq.topic, payload: { q: i, n }, keys: [`k${i}-${n}`, 'every'] }, { queue: mq }),
      );
  }
  return results;
}

describe('admin reads on the embedded broker', () => {
  it('consumerProgress: per queue brokerOffset = sent, consumerOffset = committed, lag = the difference, lastTimestamp of the last consumed; retry topic left out', async () => {
    const topic = uniqueName('T');
    const group = uniqueName('g');
    await admin.createTopic({ topic, queues: 2 });
    const queues = await admin.queues(topic);
    const sent = [5, 3, 4, 7];
    const consumed = [2, 0, 4, 1];
    await fill(queues, sent);
    for (const [i, mq] of queues.entries())
      if (consumed[i]! > 0) await admin.transport.offsets.commitConsumerOffset(group, mq, consumed[i]!);
    // The retry topic's offsets are kept by the broker like any other; consumerProgress leaves them out.
    await admin.createTopic({ topic: `%RETRY%${group}`, queues: 1 });
    await admin.transport.offsets.commitConsumerOffset(
      group,
      { topic: `%RETRY%${group}`, brokerName: queues[0]!.brokerName, queueId: 0 },
      0,
    );
    const rows = await admin.consumerProgress(group);
    // Every queue of a topic the group has offsets for on that broker: broker-a's queue 1, never committed, reads 0.
    expect(rows).toEqual(
      queues.map((mq, i) => ({
        topic,
        brokerName: mq.brokerName,
        queueId: mq.queueId,
        brokerOffset: sent[i],
        consumerOffset: consumed[i],
        lag: sent[i]! - consumed[i]!,
        lastTimestamp:
          consumed[i]! > 0
            ? harness.broker.messages(topic, mq.brokerName, mq.queueId)[consumed[i]! - 1]!.storeTimestamp
            : 0,
      })),
    );
    expect(await admin.consumerProgress(uniqueName('nobody'))).toEqual([]);
  });

  it("consumerProgress names each queue's owner from the members' running info; a stopped group keeps its offsets and loses its owners", async () => {
    const topic = uniqueName('T');
    const group = uniqueName('g');
    await admin.createTopic({ topic, queues: 2 });
    const seen = new Deliveries();
    const consumer = consumerClass({ group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' }, (m) =>
      seen.record(m.payload.seq),
    );
    const a = await harness.app([consumer], { instanceName: uniqueName('a') });
    const b = await harness.app([consumer], { instanceName: uniqueName('b') });
    await waitFor(
      () =>
        a
          .consumer(group)
          .status()
          .queues.filter((q) => q.mq.topic === topic).length === 2 &&
        b
          .consumer(group)
          .status()
          .queues.filter((q) => q.mq.topic === topic).length === 2,
    );
    await harness.produce(topic, 40);
    await waitFor(async () => (await admin.consumerProgress(group)).every((r) => r.lag === 0) && seen.unique === 40, {
      timeoutMs: 10_000,
    });
    const rows = await admin.consumerProgress(group);
    expect(rows.reduce((n, r) => n + r.brokerOffset, 0)).toBe(40);
    for (const app of [a, b]) {
      const owned = app
        .consumer(group)
        .status()
        .queues.filter((q) => q.mq.topic === topic)
        .map((q) => `${q.mq.brokerName}/${q.mq.queueId}`)
        .sort();
      expect(
        rows
          .filter((r) => r.clientId === app.clientId)
          .map((r) => `${r.brokerName}/${r.queueId}`)
          .sort(),
      ).toEqual(owned);
    }
    await a.stop();
    await b.stop();
    const after = await admin.consumerProgress(group);
    expect(after.map((r) => [r.queueId, r.consumerOffset, r.clientId])).toEqual(
      rows.map((r) => [r.queueId, r.consumerOffset, undefined]),
    );
  });

  it('topicStats: min 0, max = messages stored, last update = the newest store time; an unknown topic is a topic-not-found BrokerError', async () => {
    const topic = uniqueName('T');
    await admin.createTopic({ topic, queues: 2 });
    const queues = await admin.queues(topic);
    await fill(queues, [4, 0, 2, 1]);
    const stats = await admin.topicStats(topic);
    expect(stats).toEqual(
      queues.map((mq, i) => ({
        mq,
        minOffset: 0,
        maxOffset: [4, 0, 2, 1][i],
        lastUpdateTimestamp: harness.broker.messages(topic, mq.brokerName, mq.queueId).at(-1)?.storeTimestamp ?? 0,
      })),
    );
    const unknown = await admin.topicStats(uniqueName('missing')).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(BrokerError);
    expect(unknown).toMatchObject({ responseCode: 17, kind: 'topic-not-found' });
  });

  it('consumerConnections: every member, the group registration and its subscriptions; a group with no member online is ConsumerNotOnlineError', async () => {
    const topic = uniqueName('T');
    const group = uniqueName('g');
    await admin.createTopic({ topic, queues: 1 });
    const consumer = consumerClass(
      { group, topic, tags: 'a || b', consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
      () => undefined,
    );
    const a = await harness.app([consumer], { instanceName: uniqueName('a') });
    const b = await harness.app([consumer], { instanceName: uniqueName('b') });
    const found = await admin.consumerConnections(group);
    expect(found.connections.map((c) => c.clientId)).toEqual([a.clientId, b.clientId].sort());
    expect(found.connections[0]).toMatchObject({ language: 'NODE_JS', clientAddr: `${a.clientId.split('@')[0]}:0` });
    expect(found).toMatchObject({
      consumeType: 'CONSUME_PASSIVELY',
      messageModel: 'CLUSTERING',
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    });
    const sub = found.subscriptions.find((s) => s.topic === topic)!;
    expect([sub.expression, [...sub.tags].sort()]).toEqual(['a || b', ['a', 'b']]);
    expect(found.subscriptions.map((s) => s.topic)).toContain(`%RETRY%${group}`);
    await a.stop();
    await b.stop();
    await expect(admin.consumerConnections(group)).rejects.toBeInstanceOf(ConsumerNotOnlineError);
    // A pull consumer registers CONSUME_ACTIVELY.
    const pull = await createPullConsumer({
      transport: memoryTransport({ broker: harness.broker }),
      group,
      profile: 'fast',
      instanceName: uniqueName('pull'),
    });
    closers.push(() => pull.close());
    await pull.subscribe(topic);
    await waitFor(
      async () => (await admin.consumerConnections(group).catch(() => undefined))?.consumeType === 'CONSUME_ACTIVELY',
    );
  });

  it("queryMessagesByKey: the topic's messages with that key in their KEYS, oldest first, within the time range, at most maxNum (the newest)", async () => {
    const topic = uniqueName('T');
    const other = uniqueName('O');
    await admin.createTopic({ topic, queues: 1 });
    await admin.createTopic({ topic: other, queues: 1 });
    const queues = await admin.queues(topic);
    const sent = await fill(queues, [3, 2]);
    await producer.send({ topic: other, payload: {}, keys: 'every' });
    const all = await admin.queryMessagesByKey<{ q: number; n: number }>(topic, 'every', { begin: 0, end: Date.now() });
    // Oldest first; messages stored in one millisecond by broker, queue and offset.
    const stored = [...harness.broker.messages(topic)].sort(
      (x, y) => x.storeTimestamp - y.storeTimestamp || compareMessageQueues(x, y) || x.queueOffset - y.queueOffset,
    );
    expect(all.map((m) => m.offsetMsgId)).toEqual(stored.map((m) => m.offsetMsgId));
    expect(all.every((m) => m.topic === topic && m.keys.includes('every'))).toBe(true);
    const one = await admin.queryMessagesByKey<{ q: number; n: number }>(topic, 'k1-1', { begin: 0, end: Date.now() });
    expect(one.map((m) => [m.payload, m.msgId, m.queueId])).toEqual([
      [{ q: 1, n: 1 }, sent[4]!.msgId, queues[1]!.queueId],
    ]);
    expect(
      (await admin.queryMessagesByKey(topic, 'every', { begin: 0, end: Date.now(), maxNum: 2 })).map(
        (m) => m.offsetMsgId,
      ),
    ).toEqual(stored.slice(-2).map((m) => m.offsetMsgId));
    expect(
      await admin.queryMessagesByKey(topic, 'every', { begin: Date.now() + 60_000, end: Date.now() + 120_000 }),
    ).toEqual([]);
    expect(await admin.queryMessagesByKey(topic, 'absent', { begin: 0, end: Date.now() })).toEqual([]);
    // A UNIQ_KEY is in the index too, but it is not one of the KEYS.
    expect(await admin.queryMessagesByKey(topic, sent[0]!.msgId, { begin: 0, end: Date.now() })).toEqual([]);
    await expect(admin.queryMessagesByKey(topic, 'two keys', { begin: 0, end: 1 })).rejects.toBeInstanceOf(
      ConfigurationError,
    );
    await expect(admin.queryMessagesByKey(topic, 'k', { begin: 5, end: 1 })).rejects.toMatchObject({ option: 'end' });
  });

  it('viewMessage: an offsetMsgId alone, a UNIQ_KEY with its topic; otherwise MessageNotFoundError', async () => {
    const topic = uniqueName('T');
    await admin.createTopic({ topic, queues: 1 });
    const [first, second] = await fill(await admin.queues(topic), [1, 1]);
    const byOffset = await admin.viewMessage<{ q: number }>(second!.offsetMsgId);
    expect([byOffset.msgId, byOffset.offsetMsgId, byOffset.payload, byOffset.queueId]).toEqual([
      second!.msgId,
      second!.offsetMsgId,
      { q: 1, n: 0 },
      second!.messageQueue.queueId,
    ]);
    const byUniq = await admin.viewMessage(first!.msgId, { topic });
    expect([byUniq.offsetMsgId, byUniq.keys]).toEqual([first!.offsetMsgId, ['k0-0', 'every']]);
    await expect(admin.viewMessage(first!.msgId)).rejects.toBeInstanceOf(MessageNotFoundError);
    await expect(admin.viewMessage(first!.msgId, { topic: uniqueName('other') })).rejects.toBeInstanceOf(BrokerError);
    const beyond = `${second!.offsetMsgId.slice(0, 16)}${'0'.repeat(12)}FFFF`;
    await expect(admin.viewMessage(beyond)).rejects.toMatchObject({ name: 'MessageNotFoundError', msgId: beyond });
    await expect(admin.viewMessage('not-an-id')).rejects.toBeInstanceOf(ConfigurationError);
  });

  it("createSubscriptionGroup: SubscriptionGroupConfig with Java's defaults on every broker, or the listed ones; bad options are ConfigurationErrors", async () => {
    const broker = harness.broker;
    const group = uniqueName('g');
    await admin.createSubscriptionGroup(group, {
      retryMaxTimes: 3,
      consumeBroadcastEnable: false,
      consumeMessageOrderly: true,
    });
    const expected = {
      groupName: group,
      consumeEnable: true,
      consumeFromMinEnable: true,
      consumeBroadcastEnable: false,
      consumeMessageOrderly: true,
      retryQueueNums: 1,
      retryMaxTimes: 3,
      brokerId: 0,
      whichBrokerWhenConsumeSlowly: 1,
      notifyConsumerIdsChangedEnable: true,
      consumeTimeoutMinute: 15,
    };
    for (const name of broker.brokerNames) expect(broker.admin.subscriptionGroup(name, group)).toEqual(expected);
    const only = uniqueName('g');
    await admin.createSubscriptionGroup(only, { brokers: [broker.brokerNames[0]!] });
    expect(broker.admin.subscriptionGroup(broker.brokerNames[0]!, only)).toMatchObject({
      retryMaxTimes: 16,
      consumeBroadcastEnable: true,
    });
    await expect(admin.createSubscriptionGroup(uniqueName('g'), { brokers: ['broker-z'] })).rejects.toMatchObject({
      name: 'ConfigurationError',
      option: 'brokers',
    });
    const bad = await admin
      .createSubscriptionGroup('a b', { retryMaxTimes: -2, consumeEnable: 'yes' as unknown as boolean })
      .catch((e: unknown) => e as ConfigurationError);
    expect((bad as ConfigurationError).issues.map((i) => i.option).sort()).toEqual([
      'consumeEnable',
      'group',
      'retryMaxTimes',
    ]);
  });

  it('topics: every topic, sorted, system topics flagged by { system: false }', async () => {
    const topic = uniqueName('T');
    await admin.createTopic({ topic, queues: 1 });
    await admin.createTopic({ topic: 'TBW102', queues: 1 });
    await admin.createTopic({ topic: harness.broker.brokerNames[0]!, queues: 1 });
    await admin.createTopic({ topic: `${harness.broker.clusterName}_REPLY_TOPIC`, queues: 1 });
    await admin.createTopic({ topic: '%DLQ%g', queues: 1 });
    const all = await admin.topics();
    expect(all).toEqual([...all].sort());
    expect(all).toEqual(
      expect.arrayContaining([
        topic,
        'TBW102',
        harness.broker.brokerNames[0],
        `${harness.broker.clusterName}_REPLY_TOPIC`,
        '%DLQ%g',
      ]),
    );
    const user = await admin.topics({ system: false });
    expect(user).toEqual(expect.arrayContaining([topic, '%DLQ%g']));
    expect(user).not.toEqual(expect.arrayContaining(['TBW102']));
    expect(user.some((t) => t === harness.broker.brokerNames[0] || t.endsWith('_REPLY_TOPIC'))).toBe(false);
  });

  it("with a namespace: names in are wrapped, names out are plain, and topics() lists only the namespace's own", async () => {
    const ns = uniqueName('ns').replace(/-/g, '_');
    const scoped = await createAdmin({
      transport: memoryTransport({ broker: harness.broker }),
      instanceName: uniqueName('admin'),
      namespace: ns,
    });
    closers.push(() => scoped.close());
    const topic = uniqueName('T');
    const group = uniqueName('g');
    await scoped.createTopic({ topic, queues: 1 });
    await admin.createTopic({ topic: uniqueName('outside'), queues: 1 });
    const [mq] = await scoped.queues(topic);
    expect(mq!.topic).toBe(topic);
    const sent = await producer.send(
      { topic: `${ns}%${topic}`, payload: { x: 1 }, keys: 'key' },
      { queue: { ...mq!, topic: `${ns}%${topic}` } },
    );
    await admin.transport.offsets.commitConsumerOffset(`${ns}%${group}`, { ...mq!, topic: `${ns}%${topic}` }, 1);
    expect(await scoped.consumerProgress(group)).toMatchObject([{ topic, brokerOffset: 1, consumerOffset: 1, lag: 0 }]);
    expect((await scoped.topicStats(topic)).map((s) => s.mq.topic)).toEqual([topic, topic]);
    const [found] = await scoped.queryMessagesByKey(topic, 'key', { begin: 0, end: Date.now() });
    expect([found!.topic, found!.record.topic]).toEqual([topic, `${ns}%${topic}`]);
    expect((await scoped.viewMessage(sent.msgId, { topic })).offsetMsgId).toBe(sent.offsetMsgId);
    expect(await scoped.topics({ system: false })).toEqual([topic]);
    await scoped.createSubscriptionGroup(group);
    expect(harness.broker.admin.subscriptionGroup(harness.broker.brokerNames[0]!, `${ns}%${group}`)?.groupName).toBe(
      `${ns}%${group}`,
    );
  });

  it('a transport without the ClusterAdmin role: each read fails with a ConfigurationError naming it', async () => {
    const inner = memoryTransport({ broker: harness.broker });
    const partial: TransportPlugin = {
      kind: 'transport',
      name: 'partial',
      connect: async (context) => ({ ...(await inner.connect(context)), clusterAdmin: undefined }),
    };
    const limited = await createAdmin({ transport: partial, instanceName: uniqueName('admin') });
    closers.push(() => limited.close());
    await expect(limited.consumerProgress('g')).rejects.toMatchObject({
      name: 'ConfigurationError',
      allowed: expect.stringContaining('ClusterAdmin (needed by consumerProgress)'),
    });
    await expect(limited.topics()).rejects.toMatchObject({
      allowed: expect.stringContaining('ClusterAdmin (needed by topics)'),
    });
  });
});
