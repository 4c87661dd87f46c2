import { SUSPEND_CURRENT_QUEUE_A_MOMENT, dlqTopicOf, mqKey, type ConsumerApp } from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import { expect } from 'vitest';
import { Harness, consumerClass } from '../support/fixtures';
import type { Scenario } from '../support/scenarios';
import type { TestBroker } from '../support/test-broker';

/**
 * An ORDERLY group over six queues (three on each of two brokers) while members join and leave under load: every
 * queue's messages come in offset order from 0, none twice, one batch per queue at a time, and in the end each owned
 * queue is locked at the broker by its owner (another client id gets none of them).
 */
async function orderKeptOverJoinsAndLeaves(broker: TestBroker): Promise<void> {
  const { timeoutMs } = broker;
  const topic = uniqueName('orderly');
  const group = uniqueName('g');
  await broker.createTopic(topic, 6 / broker.brokerNames.length);
  const log = new Map<string, number[]>(); // queue -> offsets in delivery order, across every instance
  const running = new Map<string, number>();
  let overlap = 0;
  let delivered = 0;
  const Handler = consumerClass(
    {
      group,
      topic,
      consumeMode: 'ORDERLY',
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      batch: true,
      consumeMessageBatchMaxSize: 4,
    },
    async (batch, ctx) => {
      const key = mqKey(ctx.mq);
      running.set(key, (running.get(key) ?? 0) + 1);
      if (running.get(key)! > 1) overlap++;
      // The broker lock of this queue is held by this very member while it consumes.
      await new Promise((r) => setImmediate(r));
      const list = log.get(key) ?? [];
      for (const m of batch) list.push(m.queueOffset);
      log.set(key, list);
      delivered += batch.length;
      running.set(key, running.get(key)! - 1);
    },
  );
  // The members each app's last rebalance of the topic saw, for the failure message.
  const members = new Map<string, readonly string[]>();
  const app = async () => {
    const a = await broker.app([Handler]);
    a.on('consumer.rebalance', (e) => void (e.topic === topic && members.set(a.clientId, e.cidAll)));
    return a;
  };
  // The real cluster's brokers share two cores with everything else: half the messages there.
  const total = broker.kind === 'embedded' ? 6_000 : 3_000;
  const apps: ConsumerApp[] = [await app(), await app()];
  const producing = broker.produce(topic, total);
  await waitFor(() => delivered > total / 6, { timeoutMs });
  apps.push(await app());
  await waitFor(() => delivered > (total * 5) / 12, { timeoutMs });
  await apps.shift()!.stop();
  await waitFor(() => delivered > (total * 2) / 3, { timeoutMs });
  apps.push(await app());
  await producing;
  const unique = () => [...log.values()].reduce((n, l) => n + new Set(l).size, 0);
  await waitFor(() => unique() === total, { timeoutMs, message: () => `${unique()}/${total}` });
  expect(overlap).toBe(0);
  expect(log.size).toBe(6);
  for (const [queue, offsets] of log) {
    // Strictly increasing: a handoff that went back even one batch (an old commit landing late) fails here.
    const increasing = offsets.every((o, i) => i === 0 || o > offsets[i - 1]!);
    expect(increasing, `queue ${queue.replaceAll('\u0000', '/')} delivered out of order or twice`).toBe(true);
    expect(offsets[0]).toBe(0);
  }
  // Every owned queue is locked at the broker by its owner: another client id gets none of them.
  const ownedOf = (a: ConsumerApp) =>
    a
      .consumer(group)
      .status()
      .queues.filter((q) => q.mq.topic === topic);
  await waitFor(() => apps.every((a) => ownedOf(a).length === 2), {
    timeoutMs,
    message: () =>
      JSON.stringify(
        apps.map((a) => [
          a.clientId,
          ownedOf(a).map((q) => `${q.mq.brokerName}/${q.mq.queueId}`),
          members.get(a.clientId),
        ]),
      ),
  });
  const intruder = (await broker.adminApp()).transport.locks!;
  const owned = apps.flatMap((a) => ownedOf(a).map((q) => q.mq));
  expect(owned).toHaveLength(6);
  expect(await intruder.lock(group, owned)).toEqual([]);
  // The embedded broker also names the holder of each lock.
  if (broker instanceof Harness)
    for (const a of apps) for (const q of ownedOf(a)) expect(broker.broker.lockHolder(group, q.mq)).toBe(a.clientId);
}

/**
 * SUSPEND_CURRENT_QUEUE_A_MOMENT retries a message after suspendCurrentQueueTimeMillis, a throw retries it at once,
 * and past maxReconsumeTimes the message is dead-lettered and its queue moves on, in order.
 */
async function suspendedThenDeadLettered(broker: TestBroker): Promise<void> {
  const { timeoutMs } = broker;
  const topic = uniqueName('suspended');
  const group = uniqueName('g');
  await broker.createTopic(topic, 1, [broker.brokerNames[0]!]);
  const calls: [number, number, number][] = [];
  const Handler = consumerClass(
    {
      group,
      topic,
      consumeMode: 'ORDERLY',
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      maxReconsumeTimes: 2,
      suspendCurrentQueueTimeMillis: 50,
    },
    (m) => {
      calls.push([m.payload.seq, m.reconsumeTimes, Date.now()]);
      if (m.payload.seq === 1) return SUSPEND_CURRENT_QUEUE_A_MOMENT;
      if (m.payload.seq === 2 && m.reconsumeTimes === 0) throw new Error('once');
      return undefined;
    },
  );
  await broker.app([Handler]);
  // One send at a time: a real broker stores concurrent sends in the order they arrive, not in seq order.
  await broker.produce(topic, 4, { window: 1 });
  await waitFor(() => calls.some(([s]) => s === 3), { timeoutMs, message: () => JSON.stringify(calls) });
  expect(calls.map(([s, r]) => [s, r])).toEqual([
    [0, 0],
    [1, 0],
    [1, 1],
    [1, 2],
    [2, 0],
    [2, 1],
    [3, 0],
  ]);
  const gap = calls[2]![2] - calls[1]![2];
  expect(gap).toBeGreaterThanOrEqual(45);
  const dead: number[] = [];
  const DlqReader = consumerClass(
    { group: uniqueName('dlqReader'), topic: dlqTopicOf(group), consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
    (m) => void dead.push(m.payload.seq),
  );
  await broker.app([DlqReader]);
  await waitFor(() => dead.length === 1, { timeoutMs, message: 'seq 1 dead-lettered' });
  expect(dead).toEqual([1]);
}

/** ORDERLY consumption, on both brokers. */
export const ORDERLY_SCENARIOS: readonly Scenario[] = [
  {
    title:
      'keeps per-queue order over joins and leaves, one batch per queue at a time, each owned queue locked at the broker',
    timeoutMs: { embedded: 60_000, rocketmq: 120_000 },
    run: orderKeptOverJoinsAndLeaves,
  },
  {
    title:
      'a suspended batch is retried after suspendCurrentQueueTimeMillis, then dead-lettered past maxReconsumeTimes; the queue moves on',
    timeoutMs: { embedded: 20_000, rocketmq: 120_000 },
    run: suspendedThenDeadLettered,
  },
];
