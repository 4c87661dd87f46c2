import type { ConsumerApp, ConsumerAppOptions, Message, MqkitEvents } from '@mqkit/core';
import { Deliveries, uniqueName, waitFor } from '@mqkit/core/testing';
import { expect } from 'vitest';
import { consumerClass } from '../support/fixtures';
import type { Scenario } from '../support/scenarios';
import type { TestBroker } from '../support/test-broker';

// Consumers deployed before the producers or admins that create their topics: every group here uses the default
// consumeFromWhere, CONSUME_FROM_LAST_OFFSET, which reads a new group's existing queues from their end.

/** A started consumer of `topic` in `group`: its deliveries, and its topic events recorded from before its start. */
export async function startConsumer(
  broker: TestBroker,
  group: string,
  topic: string,
  options: Partial<ConsumerAppOptions> = {},
  seen = new Deliveries(),
): Promise<{
  app: ConsumerApp;
  seen: Deliveries;
  missing: MqkitEvents['consumer.topic-missing'][];
  routed: MqkitEvents['consumer.topic-routed'][];
}> {
  const missing: MqkitEvents['consumer.topic-missing'][] = [];
  const routed: MqkitEvents['consumer.topic-routed'][] = [];
  const app = await broker.createApp([consumerClass({ group, topic }, (m) => seen.record(m.payload.seq))], {
    instanceName: uniqueName('late'),
    ...options,
  });
  // From before start(): the first rebalance pass reports the missing topic before ready() resolves.
  app.on('consumer.topic-missing', (e) => missing.push(e));
  app.on('consumer.topic-routed', (e) => routed.push(e));
  await app.start();
  return { app, seen, missing, routed };
}

/**
 * Two members started before the topic exists split it once it is created, and miss nothing sent right after its
 * creation (before they took its queues), nor what lands on the queues it grows later (before they own those).
 */
async function membersBeforeTheTopicMissNothing(broker: TestBroker): Promise<void> {
  const { timeoutMs } = broker;
  const topic = uniqueName('late');
  const group = uniqueName('g');
  const seen = new Deliveries();
  const members = [
    await startConsumer(broker, group, topic, {}, seen),
    await startConsumer(broker, group, topic, {}, seen),
  ];
  await Promise.all(members.map((m) => m.app.ready()));
  // Created and written to at once: the group's start offset decides whether these count.
  await broker.createTopic(topic, 2);
  await broker.produce(topic, 40);
  await waitFor(() => seen.unique === 40, { timeoutMs, message: () => `${seen.unique}/40 handled` });
  expect(seen.missing(40)).toEqual([]);
  // Grown: messages land on the new queues before the members own them (they wait out routeArrivalGraceMs).
  await broker.createTopic(topic, 4);
  await broker.produce(topic, 40, { from: 40 });
  await waitFor(() => seen.unique === 80, { timeoutMs, message: () => `${seen.unique}/80 handled` });
  expect(seen.missing(80)).toEqual([]);
  for (const { missing } of members) expect(missing.map((e) => e.topic)).toEqual([topic]);
}

/**
 * A group started on an existing topic begins its queues at their end (what was sent before it is never handed
 * out), and reads queues the topic grows afterwards from 0.
 */
async function grownQueuesAreReadFromZero(broker: TestBroker): Promise<void> {
  const { timeoutMs } = broker;
  const topic = uniqueName('grown');
  const group = uniqueName('g');
  await broker.createTopic(topic, 2);
  await broker.produce(topic, 10); // before the group existed: never delivered
  const { app, seen, missing } = await startConsumer(broker, group, topic);
  await app.ready();
  expect(app.consumer(group).status().unroutedTopics).toEqual([]);
  await broker.createTopic(topic, 4);
  // Sent while the member may not own the new queues yet (a queue new to the route waits routeArrivalGraceMs).
  await broker.produce(topic, 40, { from: 10 });
  const late = (): number[] => seen.missing(50).filter((seq) => seq >= 10);
  await waitFor(() => late().length === 0, {
    timeoutMs,
    message: () => `every message sent after the group started is handled (missing ${late()})`,
  });
  // In queue order, 0..9 would have come before 10..49 on their queues: they were never handed out.
  expect([...seen.counts.keys()].filter((seq) => seq < 10)).toEqual([]);
  expect(missing).toEqual([]);
}

/**
 * A pull consumer subscribed before its topic exists says so, and polls everything sent once it is created: on
 * the embedded broker by the producer's first send (autoCreateTopicEnable), on the test cluster (which does not
 * create topics on a send) by an admin just before.
 */
async function pullConsumerBeforeTheTopic(broker: TestBroker): Promise<void> {
  const { timeoutMs } = broker;
  const topic = uniqueName('late');
  const consumer = await broker.pullConsumer({ group: uniqueName('g') });
  await consumer.subscribe(topic);
  await waitFor(() => consumer.status().unroutedTopics.includes(topic), { timeoutMs });
  if (broker.kind === 'rocketmq') await broker.createTopic(topic, 2);
  await broker.produce(topic, 8);
  const polled: number[] = [];
  await waitFor(
    async () => {
      const got = (await consumer.poll({ timeoutMs: 200 })) as Message<{ seq: number }>[];
      polled.push(...got.map((m) => m.payload.seq));
      return polled.length >= 8;
    },
    { timeoutMs, message: () => `${polled.length}/8 polled` },
  );
  expect(polled.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  expect(consumer.status().unroutedTopics).toEqual([]);
}

/** Consumers deployed before their topic, on both brokers. */
export const TOPIC_AFTER_CONSUMER_SCENARIOS: readonly Scenario[] = [
  {
    title:
      'two members started before the topic split it and miss nothing sent right after its creation or to the queues it grows',
    timeoutMs: { embedded: 30_000, rocketmq: 120_000 },
    run: membersBeforeTheTopicMissNothing,
  },
  {
    title: 'queues added to an existing topic are read from 0; a new group keeps starting an existing queue at its end',
    timeoutMs: { embedded: 30_000, rocketmq: 120_000 },
    run: grownQueuesAreReadFromZero,
  },
  {
    title: 'a pull consumer subscribed before its topic exists polls everything sent to it',
    timeoutMs: { embedded: 30_000, rocketmq: 120_000 },
    run: pullConsumerBeforeTheTopic,
  },
];
