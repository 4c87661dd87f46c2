import type { ConsumerApp, Message } from '@mqkit/core';
import { Deliveries, simulateCrash, uniqueName, waitFor } from '@mqkit/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerClass } from '../support/fixtures';
import { RocketMqHarness, testCluster } from '../support/rocketmq-fixtures';

let harness: RocketMqHarness;
beforeAll(async () => {
  harness = new RocketMqHarness(await testCluster());
});
afterAll(async () => harness?.close());

describe('exclusive handoff on a real cluster', () => {
  it('a join and a leave while messages flow: 0 duplicates, 0 lost', async () => {
    const topic = uniqueName('handoff');
    const group = uniqueName('g');
    await harness.createTopic(topic, 4);
    const seen = new Deliveries();
    const Handler = consumerClass(
      { group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', exclusiveHandoff: true, consumeThreadMax: 8 },
      async (m: Message<{ seq: number }>) => {
        await new Promise((r) => setImmediate(r));
        seen.record(m.payload.seq);
      },
    );
    const apps: ConsumerApp[] = [await harness.app([Handler]), await harness.app([Handler])];
    const total = 6_000;
    const producing = harness.produce(topic, total);
    await waitFor(() => seen.unique > 1_500, { timeoutMs: 30_000 });
    apps.push(await harness.app([Handler]));
    await waitFor(() => seen.unique > 3_500, { timeoutMs: 30_000 });
    await apps.shift()!.stop();
    await producing;
    await waitFor(() => seen.unique === total, { timeoutMs: 30_000, message: () => `${seen.unique} of ${total}` });
    // The two members left own all eight queues between them once the last handoff settled.
    const owned = () =>
      apps.reduce(
        (n, a) =>
          n +
          a
            .consumer(group)
            .status()
            .queues.filter((q) => q.mq.topic === topic && q.state === 'active').length,
        0,
      );
    await waitFor(() => owned() === 8, { timeoutMs: 20_000, message: () => `${owned()} of 8 queues owned` });
    expect(seen.missing(total)).toEqual([]);
    expect(seen.duplicates).toBe(0);
  }, 120_000);

  it('a killed member: its queues move only once the broker lock it held expired, and nothing is lost', async () => {
    const topic = uniqueName('handoff');
    const group = uniqueName('g');
    await harness.createTopic(topic, 2);
    const seen = new Deliveries();
    const Handler = consumerClass(
      { group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', exclusiveHandoff: true },
      (m: Message<{ seq: number }>) => seen.record(m.payload.seq),
    );
    const apps: ConsumerApp[] = [await harness.app([Handler]), await harness.app([Handler])];
    const owned = (app: ConsumerApp) =>
      app
        .consumer(group)
        .status()
        .queues.filter((q) => q.mq.topic === topic && q.state === 'active')
        .map((q) => `${q.mq.brokerName}/${q.mq.queueId}`);
    await waitFor(() => apps.every((a) => owned(a).length === 2), {
      timeoutMs: 30_000,
      message: 'two members with two queues each',
    });
    await harness.produce(topic, 400);
    await waitFor(() => seen.unique === 400, { timeoutMs: 30_000 });
    const [survivor, victim] = apps as [ConsumerApp, ConsumerApp];
    const orphaned = owned(victim);
    // Nothing in flight at the crash: every consumed offset reached the broker.
    await waitFor(
      () =>
        victim
          .consumer(group)
          .status()
          .queues.every((q) => q.persistedOffset === q.committableOffset),
      { timeoutMs: 10_000 },
    );
    // The victim renews its locks every 150 ms (fast profile); the test brokers keep a lock 10 s after the last one.
    await simulateCrash(victim);
    const crashedAt = Date.now();
    let early = 0;
    await waitFor(
      () => {
        const takenAll = orphaned.every((q) => owned(survivor).includes(q));
        if (owned(survivor).some((q) => orphaned.includes(q)) && Date.now() - crashedAt < 9_000) early++;
        return takenAll;
      },
      { timeoutMs: 30_000, intervalMs: 20, message: "the survivor taking the victim's queues" },
    );
    // The broker refused the survivor's locks until the dead member's expired (10 s after its last renewal).
    expect(early).toBe(0);
    expect(Date.now() - crashedAt).toBeGreaterThanOrEqual(9_000);
    await harness.produce(topic, 200, { from: 400 });
    await waitFor(() => seen.unique === 600, { timeoutMs: 30_000 });
    expect(seen.missing(600)).toEqual([]);
    // Everything consumed was committed before the crash (nothing was in flight), so nothing comes twice.
    expect(seen.duplicates).toBe(0);
  }, 120_000);
});
