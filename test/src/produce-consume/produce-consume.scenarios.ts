import type { ConsumeContext, Message } from '@mqkit/core';
import { Deliveries, uniqueName, waitFor } from '@mqkit/core/testing';
import { expect } from 'vitest';
import { consumerClass } from '../support/fixtures';
import type { Scenario } from '../support/scenarios';
import type { TestBroker } from '../support/test-broker';

const TAGS = ['A', 'B', 'C'] as const;

/**
 * 10,000 messages tagged A, B and C in turn over four queues on each of two brokers, read by two groups of one app:
 * a "A || B" group gets exactly those (and each once), a "*" group gets every message, from both brokers.
 */
async function tagFilteredAndAllGroups(broker: TestBroker): Promise<void> {
  const topic = uniqueName('pc');
  await broker.createTopic(topic, 4);
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
  await broker.app([Filtered, All]);
  await broker.produce(topic, total, { tags: (seq) => TAGS[seq % 3], window: 128 });
  const expected = Array.from({ length: total }, (_, seq) => seq).filter((seq) => seq % 3 !== 2);
  await waitFor(() => all.unique === total && filtered.unique === expected.length, {
    timeoutMs: broker.timeoutMs,
    message: () => `all ${all.unique}/${total}, filtered ${filtered.unique}/${expected.length}`,
  });
  expect(wrongTag).toEqual([]);
  expect([...filtered.counts.keys()].sort((a, b) => a - b)).toEqual(expected);
  expect(all.missing(total)).toEqual([]);
  expect(brokers).toEqual(new Set(broker.brokerNames));
  expect(broker.brokerNames).toHaveLength(2);
}

/** Producing and consuming, on both brokers. */
export const PRODUCE_CONSUME_SCENARIOS: readonly Scenario[] = [
  {
    title: '10,000 messages across two brokers: a "A || B" group gets exactly those tags, a "*" group gets all',
    timeoutMs: { embedded: 60_000, rocketmq: 120_000 },
    run: tagFilteredAndAllGroups,
  },
];
