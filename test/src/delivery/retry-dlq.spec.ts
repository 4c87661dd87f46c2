import { RECONSUME_LATER, type RetryChannel, type TransportPlugin } from '@mqkit/core';
import { Deliveries, uniqueName, waitFor } from '@mqkit/core/testing';
import { memoryTransport } from '@mqkit/transport-memory';
import { afterEach, describe, expect, it } from 'vitest';
import { Harness, consumerClass } from '../support/fixtures';

let harness: Harness;
afterEach(async () => harness?.close());

describe('retry and dead letters (CONCURRENTLY)', () => {
  it('a failing message comes back with reconsumeTimes 1, 2, 3, then lands in the DLQ, while the rest keep flowing', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 1 });
    const poison = new Map<number, number[]>();
    const good = new Deliveries();
    const Handler = consumerClass(
      { group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', maxReconsumeTimes: 3 },
      (m) => {
        if (m.payload.seq === 0) {
          poison.set(m.reconsumeTimes, [...(poison.get(m.reconsumeTimes) ?? []), m.queueOffset]);
          expect(m.topic).toBe(topic); // the original topic, not %RETRY%
          throw new Error('poison');
        }
        good.record(m.payload.seq);
      },
    );
    await harness.app([Handler]);
    await harness.produce(topic, 200);
    // The poison message does not block its queue: everything else is consumed first.
    await waitFor(() => good.unique === 199);
    await waitFor(() => harness.broker.messages(`%DLQ%${group}`).length === 1, { timeoutMs: 20_000 });
    expect([...poison.keys()]).toEqual([0, 1, 2, 3]);
    const dead = harness.broker.messages(`%DLQ%${group}`)[0]!;
    expect(JSON.parse(dead.body.toString())).toEqual({ seq: 0 });
    expect(dead.properties).toMatchObject({ RETRY_TOPIC: topic, KEYS: 'k0' });
    // The failed delivery with reconsumeTimes 3 counts too, as RocketMQ's broker stores it (3 + 1).
    expect(dead.reconsumeTimes).toBe(4);
    // Committed past everything: nothing is redelivered after the DLQ.
    await waitFor(
      () => harness.broker.queryConsumerOffset(group, { topic, brokerName: 'broker-a', queueId: 0 }) === 200,
    );
  }, 30_000);

  it('RECONSUME_LATER retries like a throw; delayLevelWhenNextConsume -1 dead-letters at once', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 1 });
    const seen: [number, number][] = [];
    const Handler = consumerClass({ group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' }, (m, ctx) => {
      seen.push([m.payload.seq, m.reconsumeTimes]);
      if (m.payload.seq === 1 && m.reconsumeTimes === 0) return RECONSUME_LATER;
      if (m.payload.seq === 2) {
        ctx.delayLevelWhenNextConsume = -1;
        return RECONSUME_LATER;
      }
      return undefined;
    });
    await harness.app([Handler]);
    await harness.produce(topic, 3);
    await waitFor(() => seen.some(([s, r]) => s === 1 && r === 1));
    await waitFor(() => harness.broker.messages(`%DLQ%${group}`).length === 1);
    expect(seen.filter(([s]) => s === 2)).toEqual([[2, 0]]);
  }, 20_000);

  it('ackIndex: a batch handler retries only the tail after the index', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 1 });
    await harness.produce(topic, 10);
    const calls: { seqs: number[]; retries: number[] }[] = [];
    const Handler = consumerClass(
      { group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', batch: true, consumeMessageBatchMaxSize: 10 },
      (batch, ctx) => {
        calls.push({ seqs: batch.map((m) => m.payload.seq), retries: batch.map((m) => m.reconsumeTimes) });
        if (calls.length === 1) {
          ctx.ackIndex = 6; // messages 0..6 succeeded, 7..9 are retried
        }
        return undefined;
      },
    );
    await harness.app([Handler]);
    await waitFor(() => calls.reduce((n, c) => n + c.seqs.length, 0) === 13);
    expect(calls[0]!.seqs).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const retried = calls
      .slice(1)
      .flatMap((c) => c.seqs)
      .sort((a, b) => a - b);
    expect(retried).toEqual([7, 8, 9]);
    expect(calls.slice(1).flatMap((c) => c.retries)).toEqual([1, 1, 1]);
  }, 20_000);

  it('when send-back fails the message is consumed again locally, never dropped', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 1 });
    const inner = memoryTransport({ broker: harness.broker });
    let sendBackFailures = 0;
    const broken: RetryChannel = {
      sendBack: async () => {
        sendBackFailures++;
        throw new Error('broker unreachable');
      },
    };
    const failingRetry: TransportPlugin = {
      kind: 'transport',
      name: 'memory-without-send-back',
      connect: async (context) => ({ ...(await inner.connect(context)), retry: broken }),
    };
    const attempts: number[] = [];
    const Handler = consumerClass({ group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' }, (m) => {
      attempts.push(m.reconsumeTimes);
      if (attempts.length < 3) throw new Error('fail twice');
    });
    await harness.app([Handler], { transport: failingRetry });
    await harness.produce(topic, 1);
    await waitFor(() => attempts.length === 3);
    expect(attempts).toEqual([0, 1, 2]);
    expect(sendBackFailures).toBe(2);
    await waitFor(() => harness.broker.queryConsumerOffset(group, { topic, brokerName: 'broker-a', queueId: 0 }) === 1);
  }, 20_000);

  it('a call past consumeTimeout is aborted and its message retried', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 1 });
    const attempts: number[] = [];
    let aborted = false;
    const Handler = consumerClass(
      { group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', consumeTimeout: 0.005 },
      (m, ctx) => {
        attempts.push(m.reconsumeTimes);
        if (m.reconsumeTimes > 0) return undefined;
        ctx.signal.addEventListener('abort', () => (aborted = true));
        return new Promise(() => undefined); // hangs
      },
    );
    await harness.app([Handler]);
    await harness.produce(topic, 1);
    await waitFor(() => attempts.length === 2, { timeoutMs: 10_000 });
    expect(attempts).toEqual([0, 1]);
    expect(aborted).toBe(true);
  }, 20_000);

  it('BROADCASTING failures are reported and skipped, not retried', async () => {
    harness = new Harness();
    const { fileOffsetStore } = await import('@mqkit/offset-store-file');
    const { mkdtemp } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 1 });
    const attempts: number[] = [];
    const Handler = consumerClass(
      { group, topic, messageModel: 'BROADCASTING', consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
      (m) => {
        attempts.push(m.payload.seq);
        if (m.payload.seq === 0) throw new Error('fails');
      },
    );
    const dir = await mkdtemp(join(tmpdir(), 'mqkit-bc-'));
    const app = await harness.app([Handler], { offsetStore: fileOffsetStore({ dir, name: 'one' }) });
    const skipped: string[] = [];
    app.on('consumer.error', (e) => e.where === 'broadcast-failure-skipped' && skipped.push(e.error.message));
    await harness.produce(topic, 3);
    await waitFor(() => attempts.length === 3 && skipped.length === 1);
    await waitFor(() =>
      app
        .consumer(group)
        .status()
        .queues.every((q) => q.committableOffset === 3),
    );
    expect(attempts.sort()).toEqual([0, 1, 2]);
    expect(harness.broker.messages(`%RETRY%${group}`)).toHaveLength(0);
  }, 20_000);
});
