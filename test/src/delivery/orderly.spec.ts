import { SUSPEND_CURRENT_QUEUE_A_MOMENT, mqKey, type ConsumerApp } from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { Harness, consumerClass } from '../support/fixtures';

let harness: Harness;
afterEach(async () => harness?.close());

describe('ORDERLY consumption', () => {
  it('keeps per-queue order across 3 instances with joins and leaves, one batch per queue at a time, under broker locks', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 6 });
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
    const apps: ConsumerApp[] = [await harness.app([Handler]), await harness.app([Handler])];
    const total = 6_000;
    const producing = harness.produce(topic, total);
    await waitFor(() => delivered > 1_000);
    apps.push(await harness.app([Handler]));
    await waitFor(() => delivered > 2_500);
    await apps.shift()!.stop();
    await waitFor(() => delivered > 4_000);
    apps.push(await harness.app([Handler]));
    await producing;
    await waitFor(
      () =>
        new Set([...log.values()].flat()).size > 0 &&
        [...log.values()].reduce((n, l) => n + new Set(l).size, 0) === total,
      { timeoutMs: 30_000 },
    );
    expect(overlap).toBe(0);
    for (const [queue, offsets] of log) {
      const increasing = offsets.every((o, i) => i === 0 || o > offsets[i - 1]!);
      expect(increasing, `queue ${queue} delivered out of order or twice`).toBe(true);
      expect(offsets[0]).toBe(0);
    }
    // Every owned queue is locked at the broker by its owner.
    for (const app of apps) {
      for (const q of app.consumer(group).status().queues)
        expect(harness.broker.lockHolder(group, q.mq)).toBe(app.clientId);
    }
  }, 60_000);

  it('a suspended batch is retried after suspendCurrentQueueTimeMillis, then dead-lettered past maxReconsumeTimes; the queue moves on', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 1 });
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
    await harness.app([Handler]);
    await harness.produce(topic, 4);
    await waitFor(() => calls.some(([s]) => s === 3));
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
    await waitFor(() => harness.broker.messages(`%DLQ%${group}`).length === 1);
    expect(JSON.parse(harness.broker.messages(`%DLQ%${group}`)[0]!.body.toString())).toEqual({ seq: 1 });
  }, 20_000);
});
