import {
  RECONSUME_LATER,
  dlqTopicOf,
  retryTopicOf,
  type ConsumeContext,
  type Message,
  type MessageQueue,
  type RetryChannel,
  type TransportPlugin,
} from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { consumerClass } from '../support/fixtures';
import type { Scenario } from '../support/scenarios';
import type { TestBroker } from '../support/test-broker';

/** What a reader of the group's dead-letter queue got, by seq. */
type DeadLetters = Map<number, Message<{ seq: number }>>;

/** Starts a group of its own reading `%DLQ%<group>` from the start; the map fills as dead letters arrive. */
async function readDeadLetters(broker: TestBroker, group: string): Promise<DeadLetters> {
  const dead: DeadLetters = new Map();
  const DlqReader = consumerClass(
    { group: uniqueName('dlqReader'), topic: dlqTopicOf(group), consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
    (m) => void dead.set(m.payload.seq, m),
  );
  await broker.app([DlqReader]);
  return dead;
}

/** The only queue of a topic created on the first broker alone, so that its messages come in one order. */
async function oneQueueTopic(broker: TestBroker, prefix: string): Promise<{ topic: string; mq: MessageQueue }> {
  const topic = uniqueName(prefix);
  const brokerName = broker.brokerNames[0]!;
  await broker.createTopic(topic, 1, [brokerName]);
  return { topic, mq: { topic, brokerName, queueId: 0 } };
}

/**
 * Every 5th message fails for good (maxReconsumeTimes 3), seq 1 once: each is sent back, comes again from
 * `%RETRY%<group>` with its real topic and reconsumeTimes 1, 2, 3, and past that lands in `%DLQ%<group>` as the
 * broker stores it (reconsumeTimes 3 + 1, RETRY_TOPIC naming its topic, its keys). Every other message is handled
 * once, and the group commits every queue to its end.
 */
async function failuresGoBackThenToTheDlq(broker: TestBroker): Promise<void> {
  const { timeoutMs } = broker;
  const topic = uniqueName('retry');
  const group = uniqueName('g');
  await broker.createTopic(topic, 2);
  const attempts = new Map<number, Array<{ from: string; topic: string; reconsumeTimes: number }>>();
  const Handler = consumerClass(
    { group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', maxReconsumeTimes: 3 },
    (m: Message<{ seq: number }>, ctx: ConsumeContext) => {
      const list = attempts.get(m.payload.seq) ?? [];
      list.push({ from: ctx.mq.topic, topic: m.topic, reconsumeTimes: m.reconsumeTimes });
      attempts.set(m.payload.seq, list);
      if (m.payload.seq % 5 === 0) throw new Error(`seq ${m.payload.seq} fails`);
      // seq 1 fails once, then succeeds on its first retry.
      if (m.payload.seq === 1 && m.reconsumeTimes === 0) throw new Error('once');
    },
  );
  const app = await broker.app([Handler]);
  const retries: Array<{ local: boolean }> = [];
  app.on('consumer.retry', (e) => retries.push(e));
  await broker.produce(topic, 20);
  const failing = [0, 5, 10, 15];
  // The test brokers' delay levels are all 1 s (the embedded broker's 100x shorter): three retries take seconds.
  await waitFor(
    () => failing.every((seq) => (attempts.get(seq)?.length ?? 0) >= 4) && (attempts.get(1)?.length ?? 0) >= 2,
    {
      timeoutMs,
      message: () => JSON.stringify([...attempts].filter(([s]) => failing.includes(s) || s === 1)),
    },
  );
  for (const seq of failing) {
    expect(attempts.get(seq)).toEqual([
      { from: topic, topic, reconsumeTimes: 0 },
      { from: retryTopicOf(group), topic, reconsumeTimes: 1 },
      { from: retryTopicOf(group), topic, reconsumeTimes: 2 },
      { from: retryTopicOf(group), topic, reconsumeTimes: 3 },
    ]);
  }
  expect(attempts.get(1)).toEqual([
    { from: topic, topic, reconsumeTimes: 0 },
    { from: retryTopicOf(group), topic, reconsumeTimes: 1 },
  ]);
  for (let seq = 0; seq < 20; seq++) if (!failing.includes(seq) && seq !== 1) expect(attempts.get(seq)).toHaveLength(1);

  // Past maxReconsumeTimes the broker dead-letters them: a reader of %DLQ%<group> finds exactly those four.
  const dead = await readDeadLetters(broker, group);
  await waitFor(() => dead.size === failing.length, {
    timeoutMs,
    message: () => `DLQ holds ${[...dead.keys()]}`,
  });
  expect([...dead.keys()].sort((a, b) => a - b)).toEqual(failing);
  for (const [seq, m] of dead) {
    // The failed delivery with reconsumeTimes 3 counts too, as RocketMQ's broker stores it (3 + 1).
    expect(m.reconsumeTimes).toBe(4);
    expect(m.properties.RETRY_TOPIC).toBe(topic);
    expect(m.keys).toEqual([`k${seq}`]);
  }
  // Every failure went back through CONSUMER_SEND_MSG_BACK (none was retried locally after a failed send-back).
  expect(retries.length).toBe(failing.length * 4 + 1);
  expect(retries.every((r) => !r.local)).toBe(true);
  // Nothing more arrives on the group after the DLQ, and it is committed past everything.
  expect(failing.every((seq) => attempts.get(seq)!.length === 4)).toBe(true);
  await broker.brokersCommitted(group, topic, 2 * broker.brokerNames.length);
}

/** RECONSUME_LATER retries like a throw; `delayLevelWhenNextConsume = -1` dead-letters at once. */
async function reconsumeLaterAndDeadLetterAtOnce(broker: TestBroker): Promise<void> {
  const { timeoutMs } = broker;
  const { topic } = await oneQueueTopic(broker, 'later');
  const group = uniqueName('g');
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
  await broker.app([Handler]);
  await broker.produce(topic, 3);
  await waitFor(() => seen.some(([s, r]) => s === 1 && r === 1), { timeoutMs, message: 'seq 1 retried' });
  const dead = await readDeadLetters(broker, group);
  await waitFor(() => dead.size === 1, { timeoutMs, message: 'seq 2 dead-lettered' });
  expect([...dead.keys()]).toEqual([2]);
  expect(seen.filter(([s]) => s === 2)).toEqual([[2, 0]]);
}

/** A batch handler's `ctx.ackIndex` acknowledges the head of its batch: only the tail after it is retried. */
async function ackIndexRetriesTheTail(broker: TestBroker): Promise<void> {
  const { timeoutMs } = broker;
  const { topic } = await oneQueueTopic(broker, 'acked');
  const group = uniqueName('g');
  // One send at a time: a real broker stores concurrent sends in the order they arrive, not in seq order.
  await broker.produce(topic, 10, { window: 1 });
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
  await broker.app([Handler]);
  await waitFor(() => calls.reduce((n, c) => n + c.seqs.length, 0) === 13, {
    timeoutMs,
    message: () => JSON.stringify(calls),
  });
  expect(calls[0]!.seqs).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  const retried = calls
    .slice(1)
    .flatMap((c) => c.seqs)
    .sort((a, b) => a - b);
  expect(retried).toEqual([7, 8, 9]);
  expect(calls.slice(1).flatMap((c) => c.retries)).toEqual([1, 1, 1]);
}

/** When the send-back fails, the message is consumed again here (a local retry), never dropped. */
async function failedSendBackRetriesLocally(broker: TestBroker): Promise<void> {
  const { timeoutMs } = broker;
  const { topic, mq } = await oneQueueTopic(broker, 'local');
  const group = uniqueName('g');
  const inner = broker.transport();
  let sendBackFailures = 0;
  const broken: RetryChannel = {
    sendBack: async () => {
      sendBackFailures++;
      throw new Error('broker unreachable');
    },
  };
  const failingRetry: TransportPlugin = {
    kind: 'transport',
    name: 'without-send-back',
    connect: async (context) => ({ ...(await inner.connect(context)), retry: broken }),
  };
  const attempts: number[] = [];
  const Handler = consumerClass({ group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' }, (m) => {
    attempts.push(m.reconsumeTimes);
    if (attempts.length < 3) throw new Error('fail twice');
  });
  await broker.app([Handler], { transport: failingRetry });
  await broker.produce(topic, 1);
  await waitFor(() => attempts.length === 3, { timeoutMs, message: () => `attempts ${attempts}` });
  expect(attempts).toEqual([0, 1, 2]);
  expect(sendBackFailures).toBe(2);
  await waitFor(async () => (await broker.committedOffset(group, mq)) === 1, {
    timeoutMs,
    message: 'committed past the message',
  });
}

/** A call past consumeTimeout is aborted (its `ctx.signal` fires) and its message retried. */
async function timedOutCallIsRetried(broker: TestBroker): Promise<void> {
  const { timeoutMs } = broker;
  const { topic } = await oneQueueTopic(broker, 'slow');
  const group = uniqueName('g');
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
  await broker.app([Handler]);
  await broker.produce(topic, 1);
  await waitFor(() => attempts.length === 2, { timeoutMs, message: () => `attempts ${attempts}` });
  expect(attempts).toEqual([0, 1]);
  expect(aborted).toBe(true);
}

/** In BROADCASTING a failure is reported (`broadcast-failure-skipped`) and skipped: nothing goes to a retry topic. */
async function broadcastingSkipsFailures(broker: TestBroker): Promise<void> {
  const { timeoutMs } = broker;
  const { fileOffsetStore } = await import('@mqkit/offset-store-file');
  const { topic } = await oneQueueTopic(broker, 'broadcast');
  const group = uniqueName('g');
  const attempts: number[] = [];
  const Handler = consumerClass(
    { group, topic, messageModel: 'BROADCASTING', consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
    (m) => {
      attempts.push(m.payload.seq);
      if (m.payload.seq === 0) throw new Error('fails');
    },
  );
  const dir = await mkdtemp(join(tmpdir(), 'mqkit-bc-'));
  broker.onClose(() => rm(dir, { recursive: true, force: true }));
  const app = await broker.app([Handler], { offsetStore: fileOffsetStore({ dir, name: 'one' }) });
  const skipped: string[] = [];
  app.on('consumer.error', (e) => e.where === 'broadcast-failure-skipped' && skipped.push(e.error.message));
  await broker.produce(topic, 3);
  await waitFor(() => attempts.length === 3 && skipped.length === 1, {
    timeoutMs,
    message: () => `attempts ${attempts}, skipped ${skipped}`,
  });
  await waitFor(
    () =>
      app
        .consumer(group)
        .status()
        .queues.every((q) => q.committableOffset === 3),
    { timeoutMs, message: 'the queue done past the failure' },
  );
  expect(attempts.sort()).toEqual([0, 1, 2]);
  expect(await broker.storedCount(retryTopicOf(group))).toBe(0);
}

/** Retries and dead letters (CONCURRENTLY), on both brokers. */
export const RETRY_DLQ_SCENARIOS: readonly Scenario[] = [
  {
    title:
      'a failing message is sent back, comes again on %RETRY%<group> with its real topic, and lands in the DLQ after maxReconsumeTimes',
    timeoutMs: { embedded: 30_000, rocketmq: 120_000 },
    run: failuresGoBackThenToTheDlq,
  },
  {
    title: 'RECONSUME_LATER retries like a throw; delayLevelWhenNextConsume -1 dead-letters at once',
    timeoutMs: { embedded: 20_000, rocketmq: 120_000 },
    run: reconsumeLaterAndDeadLetterAtOnce,
  },
  {
    title: 'ackIndex: a batch handler retries only the tail after the index',
    timeoutMs: { embedded: 20_000, rocketmq: 120_000 },
    run: ackIndexRetriesTheTail,
  },
  {
    title: 'when send-back fails the message is consumed again locally, never dropped',
    timeoutMs: { embedded: 20_000, rocketmq: 120_000 },
    run: failedSendBackRetriesLocally,
  },
  {
    title: 'a call past consumeTimeout is aborted and its message retried',
    timeoutMs: { embedded: 20_000, rocketmq: 120_000 },
    run: timedOutCallIsRetried,
  },
  {
    title: 'BROADCASTING failures are reported and skipped, not retried',
    timeoutMs: { embedded: 20_000, rocketmq: 120_000 },
    run: broadcastingSkipsFailures,
  },
];
