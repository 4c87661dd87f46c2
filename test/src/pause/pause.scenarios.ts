import type { ConsumeMode, ConsumerApp, StandaloneProducer } from '@mqkit/core';
import { Deliveries, sendSeqs, uniqueName, waitFor } from '@mqkit/core/testing';
import { expect } from 'vitest';
import { consumerClass } from '../support/fixtures';
import type { Scenario } from '../support/scenarios';
import type { TestBroker } from '../support/test-broker';

/**
 * Long polls held as long as RocketMQ's own (15 s): a poll the broker was holding when the pause came answers only
 * when a message arrives, not by timing out first, so the scenarios see the held poll deliver.
 */
export const HELD_POLLS = { base: 'fast' as const, pullSuspendMs: 15_000, pullTimeoutMs: 30_000 };

export const queueOf = (mq: { brokerName: string; queueId: number }) => `${mq.brokerName}#${mq.queueId}`;

/** Sends `{ seq }` for seq in [from, from + count) all at once; resolves with the results in seq order. */
export function sendAtOnce(producer: StandaloneProducer, topic: string, from: number, count: number) {
  return sendSeqs(producer, topic, count, { from, window: count });
}

/** A producer with a generous send timeout: the test brokers share two cores with everything else on the box. */
export function seqProducer(broker: TestBroker): Promise<StandaloneProducer> {
  return broker.producer({ sendMsgTimeout: 10_000 });
}

/** The group's lag on the brokers (their max offsets minus its committed ones) over the topic's queues. */
async function brokerLag(app: ConsumerApp, group: string, topic: string): Promise<number> {
  const stats = await app.transport.clusterAdmin!.consumeStats(group);
  return stats.filter((s) => s.mq.topic === topic).reduce((sum, s) => sum + s.brokerOffset - s.consumerOffset, 0);
}

/**
 * `await pause()` stops handler calls, not just pulls: the long polls the broker held at the pause answer with
 * messages sent after it, and those stay cached, unhandled and uncommitted (the committable offset stays at the
 * first of them, the group's lag on the brokers is all of them). `resume()` hands each to the handler exactly once.
 */
async function pauseHoldsHandlerCalls(broker: TestBroker, consumeMode: ConsumeMode): Promise<void> {
  const { timeoutMs } = broker;
  const topic = uniqueName('paused');
  const group = uniqueName('g');
  await broker.createTopic(topic, 2);
  const calls = new Deliveries();
  const Handler = consumerClass({ group, topic, consumeMode, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' }, (m) =>
    calls.record(m.payload.seq),
  );
  const app = await broker.app([Handler], { profile: HELD_POLLS });
  const producer = await seqProducer(broker);
  try {
    await sendAtOnce(producer, topic, 0, 20);
    await waitFor(() => calls.unique === 20, { timeoutMs, message: () => `first 20 handled: ${calls.unique}` });
    const control = app.consumer(group);
    const reasons: string[] = [];
    app.on('consumer.paused', (e) => {
      if (e.group === group) reasons.push(e.reason);
    });
    await control.pause();
    expect(reasons).toEqual(['user']);
    expect(control.status().paused).toBe(true);
    const handled = calls.total;

    const answered = new Set<string>();
    let found = 0;
    app.on('consumer.pull', (e) => {
      if (e.mq.topic !== topic) return;
      answered.add(queueOf(e.mq));
      found += e.found;
    });
    const later = await sendAtOnce(producer, topic, 20, 8);
    const sentTo = new Set(later.map((r) => queueOf(r.messageQueue)));
    // The polls the broker was holding answer with what arrived; then nothing is pulled until the resume.
    await waitFor(() => [...sentTo].every((q) => answered.has(q)), {
      timeoutMs,
      message: () => `pull answers after the pause from ${[...answered]} of ${[...sentTo]}`,
    });
    // Committed up to the pause and not past it: the brokers count all 8 as lag (a handled one would be committed
    // at the next persist, 200 ms later, and the lag would never be 8).
    await waitFor(async () => (await brokerLag(app, group, topic)) === 8, {
      timeoutMs,
      message: () => `a lag of 8 on the brokers (handler calls while paused: ${calls.total - handled})`,
    });
    expect(calls.total).toBe(handled);
    expect(found).toBeGreaterThan(0);
    const queues = control.status().queues.filter((q) => q.mq.topic === topic);
    expect(queues.reduce((sum, q) => sum + q.cachedCount, 0)).toBe(found);
    for (const q of queues) {
      const first = later.filter((r) => queueOf(r.messageQueue) === queueOf(q.mq)).map((r) => r.queueOffset);
      if (first.length > 0) expect(q.committableOffset).toBe(Math.min(...first));
    }

    control.resume();
    expect(control.status().paused).toBe(false);
    await waitFor(() => calls.unique === 28, { timeoutMs, message: () => `handled after the resume: ${calls.unique}` });
    await waitFor(async () => (await brokerLag(app, group, topic)) === 0, { timeoutMs, message: 'no lag left' });
    expect(calls.missing(28)).toEqual([]);
    expect(calls.duplicates).toBe(0);
  } finally {
    await producer.stop();
  }
}

/**
 * A retry that comes due while paused waits too. The handler pauses its own group on its first call of seq 5 and
 * fails it: `pause()` resolves only once that call finished (the message sent back to the broker), the retry comes
 * back on the group's retry queue while paused and is cached, and only `resume()` hands it to the handler again.
 */
async function retryWaitsWhilePaused(broker: TestBroker): Promise<void> {
  const { timeoutMs } = broker;
  const topic = uniqueName('retried');
  const group = uniqueName('g');
  await broker.createTopic(topic, 2);
  const calls = new Deliveries();
  let app: ConsumerApp | undefined;
  let pausing: Promise<void> | undefined;
  const Handler = consumerClass({ group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' }, (m) => {
    calls.record(m.payload.seq);
    if (m.payload.seq !== 5 || pausing) return;
    // Not awaited: the pause resolves only once this very call has finished.
    pausing = app!.consumer(group).pause();
    throw new Error('fails once, and pauses its group');
  });
  const retries: string[] = [];
  app = await broker.app([Handler], { profile: HELD_POLLS });
  app.on('consumer.retry', (e) => {
    if (e.topic === topic) retries.push(e.msgId);
  });
  const retryTopic = `%RETRY%${group}`;
  // The retry queues are owned (the broker creates the retry topic at the group's first heartbeat), so the retry
  // reaches this member while it is paused.
  await waitFor(
    async () => {
      const routed = await app!.transport.routes.subscribeQueues(retryTopic);
      const owned = app!
        .consumer(group)
        .status()
        .queues.filter((q) => q.mq.topic === retryTopic);
      return routed.length > 0 && owned.length === routed.length;
    },
    { timeoutMs, message: 'the retry queues owned' },
  );
  const producer = await seqProducer(broker);
  let retried = 0;
  app.on('consumer.pull', (e) => {
    if (e.mq.topic === retryTopic) retried += e.found;
  });
  try {
    await sendAtOnce(producer, topic, 0, 20);
    await waitFor(() => pausing !== undefined, { timeoutMs, message: 'the pausing call of seq 5' });
    await pausing;
    // The pause resolved after the failed call was sent back.
    expect(retries).toHaveLength(1);
    const handled = calls.total;
    await waitFor(() => retried > 0, { timeoutMs, message: 'the retry of seq 5 pulled while paused' });
    expect(calls.total).toBe(handled);
    expect(calls.counts.get(5)).toBe(1);

    app.consumer(group).resume();
    await waitFor(() => calls.unique === 20 && calls.counts.get(5) === 2, {
      timeoutMs,
      message: () => `handled after the resume: ${calls.unique}, seq 5 ${calls.counts.get(5)} times`,
    });
    expect(calls.missing(20)).toEqual([]);
    expect(calls.duplicates).toBe(1);
  } finally {
    await producer.stop();
  }
}

/**
 * A rebalance while paused loses nothing: a second member joins a paused one, which releases half of its queues
 * with what it had cached of them unhandled; the newcomer reads those from the committed offset, and the paused
 * member handles what stayed its own only after `resume()`. Every message is handled exactly once.
 */
async function rebalanceWhilePausedLosesNothing(broker: TestBroker): Promise<void> {
  const { timeoutMs } = broker;
  const topic = uniqueName('moved');
  const group = uniqueName('g');
  await broker.createTopic(topic, 2);
  // Two queues on every broker: an even number, which the two members split half and half.
  const queues = 2 * broker.brokerNames.length;
  const all = new Deliveries();
  const byMember = [new Deliveries(), new Deliveries()] as const;
  const member = (i: 0 | 1) =>
    consumerClass({ group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' }, (m) => {
      all.record(m.payload.seq);
      byMember[i].record(m.payload.seq);
    });
  const a = await broker.app([member(0)], { profile: HELD_POLLS });
  const producer = await seqProducer(broker);
  try {
    await sendAtOnce(producer, topic, 0, 20);
    await waitFor(() => all.unique === 20, { timeoutMs, message: () => `first 20 handled: ${all.unique}` });
    await a.consumer(group).pause();
    const handledByA = byMember[0].total;
    const later = await sendAtOnce(producer, topic, 20, 16);
    // Each queue's held poll brought some in: whichever queues move, the paused member had cached messages of them.
    const cached = () =>
      a
        .consumer(group)
        .status()
        .queues.filter((q) => q.mq.topic === topic)
        .map((q) => q.cachedCount);
    await waitFor(async () => cached().every((n) => n > 0) && (await brokerLag(a, group, topic)) === 16, {
      timeoutMs,
      message: () => `cached by the paused member: ${cached()}`,
    });

    const b = await broker.app([member(1)], { profile: HELD_POLLS });
    const owned = (app: ConsumerApp) =>
      app
        .consumer(group)
        .status()
        .queues.filter((q) => q.mq.topic === topic && q.state === 'active')
        .map((q) => queueOf(q.mq));
    await waitFor(() => owned(a).length === queues / 2 && owned(b).length === queues / 2, {
      timeoutMs,
      message: () => `queues of a: ${owned(a)}, of b: ${owned(b)}`,
    });
    const ofB = new Set(owned(b));
    // The newcomer handles everything of its queues, what the paused member had cached of them included.
    const sentToB = later.filter((r) => ofB.has(queueOf(r.messageQueue))).length;
    expect(sentToB).toBeGreaterThan(0);
    await waitFor(() => byMember[1].total === sentToB, {
      timeoutMs,
      message: () => `handled by b: ${byMember[1].total}/${sentToB}`,
    });
    expect(byMember[0].total).toBe(handledByA);
    expect(a.consumer(group).status().paused).toBe(true);

    a.consumer(group).resume();
    await waitFor(() => all.unique === 36, { timeoutMs, message: () => `handled after the resume: ${all.unique}` });
    expect(all.missing(36)).toEqual([]);
    expect(all.duplicates).toBe(0);
  } finally {
    await producer.stop();
  }
}

/** Pause on a push consumer, on both brokers. */
export const PAUSE_SCENARIOS: readonly Scenario[] = [
  ...(['CONCURRENTLY', 'ORDERLY'] as const).map(
    (mode): Scenario => ({
      title: `${mode}: await pause() stops handler calls; what the held long polls bring is cached and uncommitted, and handled once after resume()`,
      timeoutMs: { embedded: 30_000, rocketmq: 240_000 },
      run: (broker) => pauseHoldsHandlerCalls(broker, mode),
    }),
  ),
  {
    title:
      'a retry due while paused (sent back, pulled from the retry queue) is not handled until resume(); pause() resolves after the running call',
    timeoutMs: { embedded: 30_000, rocketmq: 240_000 },
    run: retryWaitsWhilePaused,
  },
  {
    title: 'a rebalance while paused loses nothing: moved queues go on at the new member, the rest after resume()',
    timeoutMs: { embedded: 30_000, rocketmq: 240_000 },
    run: rebalanceWhilePausedLosesNothing,
  },
];
