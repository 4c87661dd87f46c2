import type { ConsumeContext, Message } from '@mqkit/core';
import { Deliveries, uniqueName, waitFor } from '@mqkit/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerClass } from '../support/fixtures';
import { RocketMqHarness, testCluster } from '../support/rocketmq-fixtures';

let harness: RocketMqHarness;
beforeAll(async () => {
  harness = new RocketMqHarness(await testCluster());
});
afterAll(async () => harness?.close());

const TAGS = ['A', 'B', 'C'] as const;

describe('produce and consume on a real cluster', () => {
  it('10,000 messages across two brokers: a "A || B" group gets exactly those tags, a "*" group gets all', async () => {
    const topic = uniqueName('pc');
    await harness.createTopic(topic, 4);
    const total = 10_000;
    const filtered = new Deliveries();
    const all = new Deliveries();
    const brokers = new Set<string>();
    const wrongTag: string[] = [];
    const Filtered = consumerClass(
      {
        group: uniqueName('gAB'),
        topic,
        tags: 'A || B',
        consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
        consumeThreadMax: 8,
      },
      (m: Message<{ seq: number }>) => {
        if (m.tags !== TAGS[m.payload.seq % 3] || m.tags === 'C') wrongTag.push(`${m.payload.seq}:${m.tags}`);
        filtered.record(m.payload.seq);
      },
    );
    const All = consumerClass(
      { group: uniqueName('gAll'), topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', consumeThreadMax: 8 },
      (m: Message<{ seq: number }>, ctx: ConsumeContext) => {
        brokers.add(ctx.mq.brokerName);
        all.record(m.payload.seq);
      },
    );
    await harness.app([Filtered, All]);
    await harness.produce(topic, total, { tags: (seq) => TAGS[seq % 3], window: 128 });
    const expected = Array.from({ length: total }, (_, seq) => seq).filter((seq) => seq % 3 !== 2);
    await waitFor(() => all.unique === total && filtered.unique === expected.length, {
      timeoutMs: 60_000,
      message: () => `all ${all.unique}/${total}, filtered ${filtered.unique}/${expected.length}`,
    });
    expect(wrongTag).toEqual([]);
    expect([...filtered.counts.keys()].sort((a, b) => a - b)).toEqual(expected);
    expect(all.missing(total)).toEqual([]);
    expect(brokers).toEqual(new Set(['broker-a', 'broker-b']));
  }, 120_000);
});
