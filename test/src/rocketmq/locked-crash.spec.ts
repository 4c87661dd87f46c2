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

const owned = (app: ConsumerApp, group: string, topic: string) =>
  app
    .consumer(group)
    .status()
    .queues.filter((q) => q.mq.topic === topic && q.state === 'active').length;

describe('a member under broker locks killed between two persists (real cluster)', () => {
  it("its successor replays at most the victim's last pull per queue: the pulls carried its commits", async () => {
    const topic = uniqueName('lockedcrash');
    const group = uniqueName('g');
    await harness.createTopic(topic, 2);
    const seen = new Deliveries();
    const Handler = consumerClass(
      { group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', exclusiveHandoff: true, pullBatchSize: 16 },
      (m: Message<{ seq: number }>) => seen.record(m.payload.seq),
    );
    // No periodic persist during the test: what reaches the broker before the kill is what the pulls carried (and
    // without pull commits, nothing: the successor would read every queue of the victim from its start).
    const profile = { base: 'fast', persistIntervalMs: 600_000 } as const;
    const apps = [await harness.app([Handler], { profile }), await harness.app([Handler], { profile })];
    await waitFor(() => apps.every((a) => owned(a, group, topic) === 2), {
      timeoutMs: 30_000,
      message: 'two members with two queues each',
    });
    let sent = 0;
    for (let round = 0; round < 8; round++) {
      await harness.produce(topic, 100, { from: sent });
      sent += 100;
      await waitFor(() => seen.unique === sent, { timeoutMs: 30_000, message: `round ${round} handled` });
    }
    const [survivor, victim] = apps as [ConsumerApp, ConsumerApp];
    await simulateCrash(victim);
    // The victim's locks expire on the broker (10 s on the test brokers); then the survivor takes its queues.
    await waitFor(() => owned(survivor, group, topic) === 4, {
      timeoutMs: 40_000,
      message: "the survivor taking the victim's queues",
    });
    await harness.produce(topic, 100, { from: sent });
    sent += 100;
    await waitFor(() => seen.unique === sent, { timeoutMs: 30_000, message: 'everything handled' });
    expect(seen.missing(sent)).toEqual([]);
    expect(seen.duplicates).toBeLessThanOrEqual(2 * 16);
  }, 120_000);
});
