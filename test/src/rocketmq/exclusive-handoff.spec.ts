import type { ConsumerApp, Message } from '@mqkit/core';
import { waitFor } from '@mqkit/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Deliveries, consumerClass } from '../support/fixtures';
import { RocketMqHarness, testCluster, uniqueName } from './rocketmq-fixtures';

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
    const Handler = consumerClass({ group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', exclusiveHandoff: true, consumeThreadMax: 8 }, async (m: Message<{ seq: number }>) => {
      await new Promise((r) => setImmediate(r));
      seen.record(m.payload.seq);
    });
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
    const owned = () => apps.reduce((n, a) => n + a.consumer(group).status().queues.filter((q) => q.mq.topic === topic && q.state === 'active').length, 0);
    await waitFor(() => owned() === 8, { timeoutMs: 20_000, message: () => `${owned()} of 8 queues owned` });
    expect(seen.missing(total)).toEqual([]);
    expect(seen.duplicates).toBe(0);
  }, 120_000);
});
