import { createConsumerApp, type ConsumerApp, type MqkitEvents, type ProfileOption } from '@mqkit/core';
import { Deliveries, uniqueName, waitFor } from '@mqkit/core/testing';
import type { RocketMqCluster } from '@mqkit/transport-rocketmq/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { consumerClass } from '../support/fixtures';
import { mqadmin, useRocketMqHarness, type RocketMqHarness } from '../support/rocketmq-fixtures';

// Consumers deployed before the topic exists, on a real cluster whose brokers do not auto-create topics.
// Every group uses the default consumeFromWhere, CONSUME_FROM_LAST_OFFSET.

let cluster: RocketMqCluster;
let harness: RocketMqHarness;
useRocketMqHarness((c, h) => {
  cluster = c;
  harness = h;
});
const apps: ConsumerApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.stop({ timeoutMs: 5_000 });
});

/** A started consumer of `topic`, its deliveries and its topic events recorded from before its start. */
async function startConsumer(group: string, topic: string, profile: ProfileOption) {
  const seen = new Deliveries();
  const app = await createConsumerApp({
    transport: harness.transport(),
    consumers: [consumerClass({ group, topic }, (m) => seen.record(m.payload.seq))],
    profile,
    instanceName: uniqueName('late'),
  });
  apps.push(app);
  const missing: MqkitEvents['consumer.topic-missing'][] = [];
  const routed: MqkitEvents['consumer.topic-routed'][] = [];
  app.on('consumer.topic-missing', (e) => missing.push(e));
  app.on('consumer.topic-routed', (e) => routed.push(e));
  await app.start();
  return { app, seen, missing, routed };
}

describe('a consumer started before its topic exists (RocketMQ)', () => {
  it('sees the topic mqadmin creates after ready() within seconds, not at a route refresh, and handles every message', async () => {
    const topic = uniqueName('late');
    const group = uniqueName('g');
    // The default profile, with its 30 s route refresh moved out of this test's reach: only the lookups of a topic
    // without a route (every 2 s) can find it within the deadline below.
    const { app, seen, missing, routed } = await startConsumer(group, topic, {
      base: 'default',
      routeRefreshMs: 10 * 60_000,
    });
    const status = await app.ready();
    expect(status.consumers.find((c) => c.group === group)?.unroutedTopics).toEqual([topic]);
    expect(missing).toEqual([{ group, clientId: app.clientId, topic }]);

    const out = await mqadmin(['updateTopic', '-n', cluster.namesrvAddr, '-c', cluster.clusterName, '-t', topic]);
    expect(out).toMatch(/create topic to .* success/);
    await waitFor(() => routed.length > 0, {
      timeoutMs: 15_000,
      message: 'the consumer sees the new topic well before a 30 s route refresh would',
    });
    expect(routed[0]).toMatchObject({ group, topic });
    await waitFor(
      () =>
        app
          .consumer(group)
          .status()
          .queues.some((q) => q.mq.topic === topic),
      { timeoutMs: 15_000 },
    );

    await harness.produce(topic, 6);
    await waitFor(() => seen.unique === 6, { timeoutMs: 30_000, message: 'all 6 messages handled' });
    expect(seen.missing(6)).toEqual([]);
    expect(routed).toHaveLength(1);
    expect(missing).toHaveLength(1);
    expect(app.consumer(group).status().unroutedTopics).toEqual([]);
  }, 120_000);

  it('reads messages sent right after the topic was created, before the group took its queues', async () => {
    const topic = uniqueName('late');
    const group = uniqueName('g');
    const { app, seen, missing } = await startConsumer(group, topic, 'fast');
    await app.ready();
    // Created and written to at once: the group's start offset decides whether these count.
    await harness.createTopic(topic, 2);
    await harness.produce(topic, 40);
    await waitFor(() => seen.unique === 40, { timeoutMs: 30_000 });
    expect(seen.missing(40)).toEqual([]);
    // Grown: messages land on the new queues before the member owns them (they wait out routeArrivalGraceMs).
    await harness.createTopic(topic, 4);
    await harness.produce(topic, 40, { from: 40 });
    await waitFor(() => seen.unique === 80, { timeoutMs: 30_000 });
    expect(seen.missing(80)).toEqual([]);
    expect(missing.map((e) => e.topic)).toEqual([topic]);
  }, 120_000);
});
