import {
  ConsumeStatus,
  RMQ_SYS_TRACE_TOPIC,
  createProducer,
  decodeTraceData,
  type Message,
  type MqkitEvents,
  type TraceContext,
} from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import { memoryTransport } from '@mqkit/transport-memory';
import { afterEach, describe, expect, it } from 'vitest';
import { Harness, consumerClass } from '../support/fixtures';

let harness: Harness;
afterEach(async () => harness?.close());

/** Every trace record the embedded broker stored in a trace topic, with the KEYS of its trace message. */
function storedTraces(topic = RMQ_SYS_TRACE_TOPIC): { records: TraceContext[]; keys: string[][]; bornHosts: string[] } {
  const stored = harness.broker.messages(topic);
  return {
    records: stored.flatMap((m) => decodeTraceData(m.body.toString('utf8'))),
    keys: stored.map((m) => (m.properties.KEYS ?? '').split(' ')),
    bornHosts: stored.map((m) => m.bornHost),
  };
}

describe('message trace on the embedded broker', () => {
  it('a traced producer and a traced consumer app leave Pub, SubBefore, SubAfter and EndTransaction records in RMQ_SYS_TRACE_TOPIC', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    const producerGroup = uniqueName('p');
    harness.broker.createTopic({ topic, queues: 2 });
    let failedOnce = false;
    const consumed = new Set<string>();
    const app = await harness.app(
      [
        consumerClass({ group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' }, (m: Message) => {
          // The first delivery of "retry-me" asks for a retry: a failed SubAfter, then a SubBefore with retryTimes 1.
          if (m.body.toString() === 'retry-me' && !failedOnce) {
            failedOnce = true;
            return ConsumeStatus.RECONSUME_LATER;
          }
          consumed.add(m.body.toString());
          return undefined;
        }),
      ],
      { enableMsgTrace: true },
    );
    const producer = await createProducer({
      transport: memoryTransport({ broker: harness.broker }),
      group: producerGroup,
      enableMsgTrace: true,
      transactionListener: { checkLocalTransaction: () => 'COMMIT_MESSAGE' },
    });
    const plain = await producer.send({ topic, body: 'plain' });
    const tagged = await producer.send({ topic, payload: { n: 1 }, tags: 'A', keys: ['k1', 'k2'] });
    const retried = await producer.send({ topic, body: 'retry-me' });
    const batch = await producer.sendBatch([
      { topic, body: 'b1' },
      { topic, body: 'b2' },
    ]);
    const tx = await producer.sendInTransaction({ topic, body: 'tx', keys: 'tk' }, () => 'COMMIT_MESSAGE');
    const ids = [plain, tagged, retried, ...batch, tx.sendResult].map((r) => r.msgId);
    await waitFor(() => consumed.size === 6, { timeoutMs: 20_000 });
    await producer.stop();
    await app.stop();
    expect(producer.traceStatus()).toMatchObject({
      traceTopic: RMQ_SYS_TRACE_TOPIC,
      queued: 0,
      sending: 0,
      dropped: 0,
      failed: 0,
      sent: 7,
    });
    expect(producer.traceStatus()!.producerGroup).toMatch(
      new RegExp(`^_INNER_TRACE_PRODUCER-${producerGroup}-PRODUCE-\\d+$`),
    );

    const { records, keys } = storedTraces();
    const pubs = records.filter((r) => r.traceType === 'Pub');
    expect(pubs.map((p) => p.traceBeans[0]!.msgId).sort()).toEqual([...ids].sort());
    const storedById = new Map(harness.broker.messages(topic).map((m) => [m.properties.UNIQ_KEY!, m]));
    for (const pub of pubs) {
      const bean = pub.traceBeans[0]!;
      const stored = storedById.get(bean.msgId)!;
      expect(pub).toMatchObject({ regionId: 'DefaultRegion', groupName: producerGroup, success: true });
      // The embedded broker answers a half message with no offset id (a real broker gives the half topic's): no store host then.
      if (bean.msgId === tx.sendResult.msgId) expect(bean).toMatchObject({ topic, storeHost: '', offsetMsgId: '' });
      else expect(bean).toMatchObject({ topic, storeHost: stored.storeHost, offsetMsgId: stored.offsetMsgId });
      expect(pub.costTime).toBeGreaterThanOrEqual(0);
    }
    const pubOf = (id: string) => pubs.find((p) => p.traceBeans[0]!.msgId === id)!.traceBeans[0]!;
    expect(pubOf(tagged.msgId)).toMatchObject({
      tags: 'A',
      keys: 'k1 k2',
      bodyLength: Buffer.byteLength('{"n":1}'),
      msgType: 0,
    });
    expect(pubOf(plain.msgId)).toMatchObject({ tags: 'null', keys: 'null', bodyLength: 5, msgType: 0 });
    expect(pubOf(tx.sendResult.msgId)).toMatchObject({ msgType: 1 });

    const [end] = records.filter((r) => r.traceType === 'EndTransaction');
    expect(end).toMatchObject({ groupName: producerGroup, regionId: 'DefaultRegion' });
    expect(end!.traceBeans[0]).toMatchObject({
      topic,
      msgId: tx.sendResult.msgId,
      keys: 'tk',
      msgType: 2,
      transactionId: tx.sendResult.msgId,
      transactionState: 'COMMIT_MESSAGE',
      fromTransactionCheck: false,
    });

    // Every consumed message: a SubBefore and a SubAfter per delivery, paired by request id; the retry is its own pair.
    const befores = records.filter((r) => r.traceType === 'SubBefore');
    const afters = records.filter((r) => r.traceType === 'SubAfter');
    for (const id of ids) {
      const deliveries = befores.filter((b) => b.traceBeans[0]!.msgId === id);
      expect(deliveries.length, id).toBe(id === retried.msgId ? 2 : 1);
      for (const b of deliveries) {
        expect(b).toMatchObject({ groupName: group, regionId: 'DefaultRegion' });
        const after = afters.find((a) => a.requestId === b.requestId && a.traceBeans[0]!.msgId === id);
        expect(after, id).toBeDefined();
        expect(after!.groupName).toBe(group);
        expect(after!.timeStamp).toBeGreaterThanOrEqual(b.timeStamp);
      }
    }
    const retries = befores
      .filter((b) => b.traceBeans[0]!.msgId === retried.msgId)
      .sort((a, b) => a.timeStamp - b.timeStamp);
    expect(retries.map((b) => b.traceBeans[0]!.retryTimes)).toEqual([0, 1]);
    const retryAfters = retries.map((b) => afters.find((a) => a.requestId === b.requestId)!);
    expect(retryAfters.map((a) => [a.success, a.contextCode])).toEqual([
      [false, 4],
      [true, 0],
    ]);
    // Each record is found by its msgId: the trace message carrying it has the id among its KEYS.
    for (const id of ids)
      expect(
        keys.some((k) => k.includes(id)),
        id,
      ).toBe(true);
    expect(keys.some((k) => k.includes('k1') && k.includes('k2'))).toBe(true);
    // The trace producer traced nothing of its own.
    expect(records.every((r) => r.traceBeans[0]!.topic !== RMQ_SYS_TRACE_TOPIC)).toBe(true);
  }, 60_000);

  it('a check-back the producer answers is an EndTransaction record with fromTransactionCheck', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    harness.broker.createTopic({ topic, queues: 1 });
    const producer = await createProducer({
      transport: memoryTransport({ broker: harness.broker }),
      group: uniqueName('p'),
      enableMsgTrace: true,
      transactionListener: { checkLocalTransaction: () => 'COMMIT_MESSAGE' },
    });
    const tx = await producer.sendInTransaction({ topic, body: 'later' }, () => 'UNKNOW');
    await waitFor(() => harness.broker.messages(topic).length === 1, { timeoutMs: 20_000 });
    await producer.stop();
    const ends = storedTraces()
      .records.filter((r) => r.traceType === 'EndTransaction')
      .map((r) => r.traceBeans[0]!);
    const outcomes = ends.map((b) => [b.msgId, b.transactionState, b.fromTransactionCheck]);
    expect(outcomes[0]).toEqual([tx.sendResult.msgId, 'UNKNOW', false]);
    // Then one record per check-back answered (a check may come again before the commit is recorded).
    expect(outcomes.length).toBeGreaterThanOrEqual(2);
    for (const o of outcomes.slice(1)) expect(o).toEqual([tx.sendResult.msgId, 'COMMIT_MESSAGE', true]);
  });

  it('customizedTraceTopic: the records go to that topic instead', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    const traceTopic = uniqueName('TRACE');
    harness.broker.createTopic({ topic, queues: 1 });
    const producer = await createProducer({
      transport: memoryTransport({ broker: harness.broker }),
      group: uniqueName('p'),
      enableMsgTrace: true,
      customizedTraceTopic: traceTopic,
    });
    const sent = await producer.send({ topic, body: 'x' });
    await producer.stop();
    expect(storedTraces(traceTopic).records.map((r) => [r.traceType, r.traceBeans[0]!.msgId])).toEqual([
      ['Pub', sent.msgId],
    ]);
    expect(harness.broker.messages(RMQ_SYS_TRACE_TOPIC)).toHaveLength(0);
  });

  it('a tiny trace queue drops and counts records; every send still succeeds at its own pace', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    harness.broker.createTopic({ topic, queues: 2 });
    // 20 contexts per flush never fill a queue of 1: it waits for the 5 s interval, and the rest is dropped.
    const producer = await createProducer({
      transport: memoryTransport({ broker: harness.broker }),
      group: uniqueName('p'),
      enableMsgTrace: true,
      traceQueueSize: 1,
      traceMsgBatchNum: 20,
    });
    const dropped: MqkitEvents['trace.dropped'][] = [];
    producer.events.on('trace.dropped', (e) => dropped.push(e));
    const results = [];
    for (let i = 0; i < 50; i++) results.push(await producer.send({ topic, body: `m${i}` }));
    expect(results.every((r) => r.status === 'SEND_OK')).toBe(true);
    expect(harness.broker.messages(topic)).toHaveLength(50);
    const status = producer.traceStatus()!;
    expect(status.dropped).toBe(49);
    expect(status.queued).toBe(1);
    expect(dropped).toHaveLength(49);
    expect(dropped.at(-1)).toMatchObject({ reason: 'queue-full', dropped: 49, traceTopic: RMQ_SYS_TRACE_TOPIC });
    await producer.stop();
    expect(producer.traceStatus()).toMatchObject({ queued: 0, sent: 1, dropped: 49 });
    expect(storedTraces().records).toHaveLength(1);
  });
});
