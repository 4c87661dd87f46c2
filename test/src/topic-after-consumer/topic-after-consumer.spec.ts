import { uniqueName, waitFor } from '@mqkit/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { Harness, embeddedBroker } from '../support/fixtures';
import { describeScenarios } from '../support/scenarios';
import { TOPIC_AFTER_CONSUMER_SCENARIOS, startConsumer } from './topic-after-consumer.scenarios';

describeScenarios('a consumer started before its topic exists', TOPIC_AFTER_CONSUMER_SCENARIOS, embeddedBroker());

let harness: Harness | undefined;
afterEach(async () => harness?.close());

describe('a consumer started before its topic exists (embedded broker)', () => {
  it('is ready, says the topic has no route, and handles everything once a producer creates the topic', async () => {
    harness = new Harness();
    const topic = uniqueName('late');
    const group = uniqueName('g');
    // The default profile, as the README's quickstart runs: the topic appears through the broker's route notice.
    const { app, seen, ...events } = await startConsumer(harness, group, topic, {
      profile: 'default',
      producer: { group: uniqueName('p') },
    });
    const status = await app.ready();
    const own = status.consumers.find((c) => c.group === group)!;
    expect(own.unroutedTopics).toEqual([topic]);
    expect(app.consumer(group).status().unroutedTopics).toEqual([topic]);
    // Reported by the first pass, before ready() resolved.
    expect(events.missing).toEqual([{ group, clientId: app.clientId, topic }]);

    // The producer's first send creates the topic (autoCreateTopicEnable): that first message is the one a
    // queue's max offset would skip.
    for (let seq = 0; seq < 8; seq++) await app.producer.send({ topic, payload: { seq } });
    await waitFor(() => seen.unique === 8, { message: 'every message sent to the new topic is handled' });
    expect(seen.missing(8)).toEqual([]);
    expect(events.routed).toHaveLength(1);
    expect(events.routed[0]).toMatchObject({ group, topic });
    expect(events.routed[0]!.queues.length).toBeGreaterThan(0);
    expect(events.missing).toHaveLength(1);
    expect(app.consumer(group).status().unroutedTopics).toEqual([]);
  });
});
