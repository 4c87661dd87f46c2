import { uniqueName, waitFor } from '@mqkit/core/testing';
import type { RocketMqCluster } from '@mqkit/transport-rocketmq/testing';
import { describe, expect, it } from 'vitest';
import { mqadmin, rocketMqBroker, useRocketMqHarness, type RocketMqHarness } from '../support/rocketmq-fixtures';
import { describeScenarios } from '../support/scenarios';
import { TOPIC_AFTER_CONSUMER_SCENARIOS, startConsumer } from './topic-after-consumer.scenarios';

// On a real cluster whose brokers do not auto-create topics.
describeScenarios('a consumer started before its topic exists', TOPIC_AFTER_CONSUMER_SCENARIOS, rocketMqBroker());

let cluster: RocketMqCluster;
let harness: RocketMqHarness;
useRocketMqHarness((c, h) => {
  cluster = c;
  harness = h;
});

describe('a consumer started before its topic exists (RocketMQ)', () => {
  it('sees the topic mqadmin creates after ready() within seconds, not at a route refresh, and handles every message', async () => {
    const topic = uniqueName('late');
    const group = uniqueName('g');
    // The default profile, with its 30 s route refresh moved out of this test's reach: only the lookups of a topic
    // without a route (every 2 s) can find it within the deadline below.
    const { app, seen, missing, routed } = await startConsumer(harness, group, topic, {
      profile: { base: 'default', routeRefreshMs: 10 * 60_000 },
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
});
