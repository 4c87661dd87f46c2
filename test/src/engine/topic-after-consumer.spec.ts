import {
  createConsumerApp,
  createPullConsumer,
  type ConsumerApp,
  type ConsumerAppOptions,
  type Message,
  type MqkitEvents,
} from '@mqkit/core';
import { Deliveries, uniqueName, waitFor } from '@mqkit/core/testing';
import { memoryTransport } from '@mqkit/transport-memory';
import { afterEach, describe, expect, it } from 'vitest';
import { Harness, consumerClass } from '../support/fixtures';

// Consumers deployed before the producers that create their topics: every group here uses the default
// consumeFromWhere, CONSUME_FROM_LAST_OFFSET, which reads a new group's existing queues from their end.

let harness: Harness;
const apps: ConsumerApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.stop({ timeoutMs: 5_000 });
  await harness?.close();
});

/** A started app on the harness's broker, with its topic events recorded from before its start. */
async function startApp(options: Omit<ConsumerAppOptions, 'transport'>) {
  const app = await createConsumerApp({ transport: memoryTransport({ broker: harness.broker }), ...options });
  apps.push(app);
  const missing: MqkitEvents['consumer.topic-missing'][] = [];
  const routed: MqkitEvents['consumer.topic-routed'][] = [];
  app.on('consumer.topic-missing', (e) => missing.push(e));
  app.on('consumer.topic-routed', (e) => routed.push(e));
  await app.start();
  return { app, missing, routed };
}

describe('a consumer started before its topic exists (embedded broker)', () => {
  it('is ready, says the topic has no route, and handles everything once a producer creates the topic', async () => {
    harness = new Harness();
    const topic = uniqueName('late');
    const group = uniqueName('g');
    const seen = new Deliveries();
    // The default profile, as the README's quickstart runs: the topic appears through the broker's route notice.
    const { app, ...events } = await startApp({
      consumers: [consumerClass({ group, topic }, (m) => seen.record(m.payload.seq))],
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

  it('two members started before the topic split it and miss nothing sent right after its creation', async () => {
    harness = new Harness();
    const topic = uniqueName('late');
    const group = uniqueName('g');
    const seen = new Deliveries();
    const member = () => consumerClass({ group, topic }, (m) => seen.record(m.payload.seq));
    const a = await harness.app([member()]);
    const b = await harness.app([member()]);
    await Promise.all([a.ready(), b.ready()]);
    harness.broker.createTopic({ topic, queues: 4 });
    // Sent at once: the members may take the queues after these are stored.
    await harness.produce(topic, 40);
    await waitFor(() => seen.unique === 40);
    expect(seen.missing(40)).toEqual([]);
  });

  it('queues added to an existing topic are read from 0; a new group keeps starting an existing queue at its end', async () => {
    harness = new Harness();
    const topic = uniqueName('grown');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 2 });
    await harness.produce(topic, 10); // before the group existed: never delivered
    const seen = new Deliveries();
    const { app, ...events } = await startApp({
      consumers: [consumerClass({ group, topic }, (m) => seen.record(m.payload.seq))],
      profile: 'fast',
    });
    await app.ready();
    expect(app.consumer(group).status().unroutedTopics).toEqual([]);
    harness.broker.createTopic({ topic, queues: 4 });
    // Sent while the member may not own the new queues yet (a queue new to the route waits routeArrivalGraceMs).
    await harness.produce(topic, 40, { from: 10 });
    const late = (): number[] => seen.missing(50).filter((seq) => seq >= 10);
    await waitFor(() => late().length === 0, { message: 'every message sent after the group started is handled' });
    // In queue order, 0..9 would have come before 10..49 on their queues: they were never handed out.
    expect([...seen.counts.keys()].filter((seq) => seq < 10)).toEqual([]);
    expect(events.missing).toEqual([]);
  });

  it('a pull consumer subscribed before its topic exists polls everything sent to it', async () => {
    harness = new Harness();
    const topic = uniqueName('late');
    const consumer = await createPullConsumer({
      transport: memoryTransport({ broker: harness.broker }),
      group: uniqueName('g'),
      profile: 'fast',
      instanceName: uniqueName('pull'),
    });
    try {
      await consumer.subscribe(topic);
      await waitFor(() => consumer.status().unroutedTopics.includes(topic));
      await harness.produce(topic, 8);
      const polled: number[] = [];
      await waitFor(async () => {
        const got = (await consumer.poll({ timeoutMs: 200 })) as Message<{ seq: number }>[];
        polled.push(...got.map((m) => m.payload.seq));
        return polled.length >= 8;
      });
      expect(polled.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      expect(consumer.status().unroutedTopics).toEqual([]);
    } finally {
      await consumer.close();
    }
  });
});
