import type { ConsumerApp, ConsumerOptions } from '@mqkit/core';
import { Deliveries, uniqueName, waitFor } from '@mqkit/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { Harness, consumerClass } from '../support/fixtures';

let harness: Harness;
afterEach(async () => harness?.close());

/** Samples the group's caches after every pull (the moment they grow). */
function sampleAfterPulls(app: ConsumerApp, group: string) {
  const peak = { count: 0, bytes: 0, span: 0, appBytes: 0 };
  app.on('consumer.pull', () => {
    for (const q of app.consumer(group).status().queues) {
      peak.count = Math.max(peak.count, q.cachedCount);
      peak.bytes = Math.max(peak.bytes, q.cachedBytes);
    }
    peak.appBytes = Math.max(peak.appBytes, app.status().cachedBytes);
  });
  return peak;
}

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { opened, open };
}

/**
 * A fresh harness, topic and group whose handler waits behind a gate (all of them, or only the message with
 * `stuckSeq`), so messages pile up in the caches until the test opens it.
 */
function gatedGroup(queues: number, options: Partial<ConsumerOptions> & { batch?: false }, stuckSeq?: number) {
  harness = new Harness();
  const topic = uniqueName('T');
  const group = uniqueName('g');
  harness.broker.createTopic({ topic, queues });
  const g = gate();
  const seen = new Deliveries();
  const Handler = consumerClass(
    { group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', ...options },
    async (m) => {
      if (stuckSeq === undefined || m.payload.seq === stuckSeq) await g.opened;
      seen.record(m.payload.seq);
    },
  );
  return { topic, group, gate: g, seen, Handler };
}

describe('flow control (pull thresholds, span, app byte budget)', () => {
  it('cached count per queue stays within pullThresholdForQueue', async () => {
    const { topic, group, gate: g, seen, Handler } = gatedGroup(1, { pullThresholdForQueue: 50, consumeThreadMax: 4 });
    const app = await harness.app([Handler]);
    const peak = sampleAfterPulls(app, group);
    await harness.produce(topic, 1_000);
    await waitFor(() =>
      app
        .consumer(group)
        .status()
        .queues.some((q) => q.cachedCount >= 50),
    );
    expect(peak.count).toBeLessThanOrEqual(50);
    g.open();
    await waitFor(() => seen.unique === 1_000, { timeoutMs: 20_000 });
    expect(peak.count).toBeLessThanOrEqual(50);
  }, 30_000);

  it('cached bytes per queue stay within pullThresholdSizeForQueue plus one message', async () => {
    const {
      topic,
      group,
      gate: g,
      seen,
      Handler,
    } = gatedGroup(1, { pullThresholdSizeForQueue: 1, consumeThreadMax: 2 });
    const app = await harness.app([Handler]);
    const peak = sampleAfterPulls(app, group);
    const size = 60 * 1024;
    await harness.produce(topic, 100, { padding: size });
    await waitFor(() => peak.bytes >= 1024 * 1024 - size);
    const oneMessage = size + 64;
    expect(peak.bytes).toBeLessThanOrEqual(1024 * 1024 + oneMessage);
    g.open();
    await waitFor(() => seen.unique === 100, { timeoutMs: 20_000 });
    expect(peak.bytes).toBeLessThanOrEqual(1024 * 1024 + oneMessage);
  }, 30_000);

  it('a stuck message bounds the offset span by consumeConcurrentlyMaxSpan', async () => {
    const {
      topic,
      group,
      gate: g,
      seen,
      Handler,
    } = gatedGroup(1, { consumeConcurrentlyMaxSpan: 100, consumeThreadMax: 8 }, 0);
    const app = await harness.app([Handler]);
    let peakSpan = 0;
    app.on('consumer.pull', () => {
      for (const q of app.consumer(group).status().queues)
        if (q.mq.topic === topic && q.cachedCount > 0)
          peakSpan = Math.max(peakSpan, q.nextOffset - 1 - q.committableOffset);
    });
    await harness.produce(topic, 1_000);
    await waitFor(() => seen.unique >= 99);
    // With message 0 stuck, at most span + 1 offsets are cached behind it.
    await waitFor(
      () =>
        app
          .consumer(group)
          .status()
          .queues.find((q) => q.mq.topic === topic)!.nextOffset >= 100,
    );
    expect(peakSpan).toBeLessThanOrEqual(101);
    expect(seen.unique).toBeLessThanOrEqual(101);
    g.open();
    await waitFor(() => seen.unique === 1_000, { timeoutMs: 20_000 });
  }, 30_000);

  it('the app-wide byte budget caps every queue of every consumer together', async () => {
    const { topic, group, gate: g, seen, Handler } = gatedGroup(8, { consumeThreadMax: 4 });
    const budget = 256 * 1024;
    const app = await harness.app([Handler], { maxCachedBytes: budget });
    const peak = sampleAfterPulls(app, group);
    const size = 8 * 1024;
    await harness.produce(topic, 400, { padding: size });
    await waitFor(() => app.status().cachedBytes >= budget - 2 * size);
    expect(peak.appBytes).toBeLessThanOrEqual(budget + size + 64);
    g.open();
    await waitFor(() => seen.unique === 400, { timeoutMs: 20_000 });
    expect(peak.appBytes).toBeLessThanOrEqual(budget + size + 64);
    expect(app.peakCachedBytes).toBeLessThanOrEqual(budget + size + 64);
  }, 30_000);
});

describe('concurrency and batches', () => {
  it('in-flight handler calls never exceed consumeThreadMax and reach it under backlog', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 4 });
    let running = 0;
    let peak = 0;
    const seen = new Deliveries();
    const Handler = consumerClass(
      { group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', consumeThreadMin: 2, consumeThreadMax: 8 },
      async (m) => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 2));
        running--;
        seen.record(m.payload.seq);
      },
    );
    await harness.produce(topic, 600);
    await harness.app([Handler]);
    await waitFor(() => seen.unique === 600, { timeoutMs: 20_000 });
    expect(peak).toBe(8);
  }, 30_000);

  it('batches never exceed consumeMessageBatchMaxSize and fill up under backlog', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 2 });
    const sizes: number[] = [];
    const seen = new Deliveries();
    const Handler = consumerClass(
      { group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', batch: true, consumeMessageBatchMaxSize: 7 },
      (batch) => {
        sizes.push(batch.length);
        for (const m of batch) seen.record(m.payload.seq);
      },
    );
    await harness.produce(topic, 1_000);
    await harness.app([Handler]);
    await waitFor(() => seen.unique === 1_000);
    expect(Math.max(...sizes)).toBe(7);
    expect(seen.total).toBe(1_000);
  }, 30_000);
});
