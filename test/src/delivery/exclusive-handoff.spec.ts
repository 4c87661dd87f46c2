import type { ConsumerApp } from '@mqkit/core';
import { Deliveries, simulateCrash, uniqueName, waitFor } from '@mqkit/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { Harness, consumerClass } from '../support/fixtures';

let harness: Harness;
afterEach(async () => harness?.close());

function group3(topic: string, group: string, seen: Deliveries, exclusiveHandoff: boolean) {
  return consumerClass(
    { group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', exclusiveHandoff, consumeThreadMax: 8 },
    async (m) => {
      await new Promise((r) => setImmediate(r));
      seen.record(m.payload.seq);
    },
  );
}

describe('exclusive handoff (CONCURRENTLY under broker locks)', () => {
  it('repeated joins and leaves under load: 0 duplicates, 0 lost', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 8 });
    const seen = new Deliveries();
    const Handler = group3(topic, group, seen, true);
    const apps: ConsumerApp[] = [await harness.app([Handler]), await harness.app([Handler])];
    const total = 20_000;
    const producing = harness.produce(topic, total);
    for (let round = 0; round < 3; round++) {
      await waitFor(() => seen.unique > (round * 2 + 1) * 2_500, { timeoutMs: 20_000 });
      apps.push(await harness.app([Handler]));
      await waitFor(() => seen.unique > (round * 2 + 2) * 2_500, { timeoutMs: 20_000 });
      await apps.shift()!.stop();
    }
    await producing;
    await waitFor(() => seen.unique === total, { timeoutMs: 30_000, message: () => `${seen.unique} of ${total}` });
    expect(seen.missing(total)).toEqual([]);
    expect(seen.duplicates).toBe(0);
  }, 90_000);

  it('a killed member: its queues move only after the broker lock expires, and nothing is lost', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 6 });
    const seen = new Deliveries();
    const Handler = group3(topic, group, seen, true);
    const apps = [await harness.app([Handler]), await harness.app([Handler]), await harness.app([Handler])];
    const total = 9_000;
    const producing = harness.produce(topic, total);
    await waitFor(
      () =>
        seen.unique > 3_000 &&
        apps.every(
          (a) =>
            a
              .consumer(group)
              .status()
              .queues.filter((q) => q.mq.topic === topic).length === 2,
        ),
      { timeoutMs: 20_000 },
    );
    const victim = apps[2]!;
    const orphaned = victim
      .consumer(group)
      .status()
      .queues.filter((q) => q.mq.topic === topic)
      .map((q) => q.mq);
    expect(orphaned.length).toBeGreaterThan(0);
    await simulateCrash(victim);
    // Survivors learn of the death at once (its connection closed) but may take its queues only once its broker
    // locks expired: while the broker still says the victim holds a queue, no survivor may own it.
    for (const mq of orphaned) expect(harness.broker.lockHolder(group, mq)).toBe(victim.clientId);
    const survivors = apps.slice(0, 2);
    const ownedBySurvivor = (queueId: number) =>
      survivors.some((a) =>
        a
          .consumer(group)
          .status()
          .queues.some((q) => q.mq.queueId === queueId && q.mq.topic === topic && q.state === 'active'),
      );
    let violations = 0;
    await waitFor(
      () => {
        for (const mq of orphaned)
          if (harness.broker.lockHolder(group, mq) === victim.clientId && ownedBySurvivor(mq.queueId)) violations++;
        return orphaned.every((mq) => ownedBySurvivor(mq.queueId));
      },
      { timeoutMs: 20_000, intervalMs: 2 },
    );
    expect(violations).toBe(0);
    await producing;
    await waitFor(() => seen.unique === total, { timeoutMs: 30_000 });
    expect(seen.missing(total)).toEqual([]);
  }, 60_000);

  it("without it, behaviour is RocketMQ's: a joining member takes its queues while the old owner still drains them, and no lock is taken", async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 4 });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let running = 0;
    // Every call waits for the gate, so the first member has a running call on each of its queues when the second
    // joins: its release of the queues it loses has to wait for them. One message per queue (the producer sends
    // round-robin): with more, the eight calls could all come from two queues, and a queue with no running call is
    // released at once instead of drained.
    const Handler = consumerClass(
      { group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', consumeThreadMax: 8 },
      async () => {
        running++;
        await gate;
      },
    );
    const first = await harness.app([Handler]);
    await harness.produce(topic, 4);
    await waitFor(
      () =>
        running === 4 &&
        first
          .consumer(group)
          .status()
          .queues.filter((q) => q.mq.topic === topic && q.inflight > 0).length === 4,
    );
    const second = await harness.app([Handler]);
    const queuesOf = (app: ConsumerApp, state: string) =>
      app
        .consumer(group)
        .status()
        .queues.filter((q) => q.mq.topic === topic && q.state === state)
        .map((q) => q.mq.queueId);
    // The joiner consumes its half while the first member is still draining that half: they overlap, as in RocketMQ.
    await waitFor(() => queuesOf(second, 'active').length === 2 && queuesOf(first, 'draining').length === 2, {
      message: () => JSON.stringify([queuesOf(first, 'draining'), queuesOf(second, 'active')]),
    });
    expect(queuesOf(second, 'active').sort()).toEqual(queuesOf(first, 'draining').sort());
    for (let q = 0; q < 4; q++)
      expect(harness.broker.lockHolder(group, { topic, brokerName: 'broker-a', queueId: q })).toBeUndefined();
    release();
  });
});
