import { createServer } from 'node:net';
import { compareMessageQueues, createConsumerApp, type Message } from '@mqkit/core';
import { Deliveries, uniqueName, waitFor } from '@mqkit/core/testing';
import { consumerClass } from '../support/fixtures';
import { RemotingConnectionError } from '@mqkit/transport-rocketmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RocketMqHarness, clusterTransport, testCluster } from '../support/rocketmq-fixtures';

/** A loopback port nothing listens on (bound, read, released). */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let harness: RocketMqHarness;
beforeAll(async () => {
  harness = new RocketMqHarness(await testCluster());
});
afterAll(async () => harness?.close());

describe('routes on a real cluster', () => {
  it('creates a topic on both masters and discovers its queues across the two brokers', async () => {
    const topic = uniqueName('route');
    await harness.createTopic(topic, 3);
    const routes = await harness.routes();
    const subscribe = [...(await routes.subscribeQueues(topic))].sort(compareMessageQueues);
    expect(subscribe).toEqual(
      ['broker-a', 'broker-b'].flatMap((brokerName) => [0, 1, 2].map((queueId) => ({ topic, brokerName, queueId }))),
    );
    expect(await routes.publishQueues(topic)).toEqual(subscribe);
  });

  it('an unknown topic has no queues (autoCreateTopicEnable=false: no TBW102 route)', async () => {
    const routes = await harness.routes();
    const topic = uniqueName('missing');
    expect(await routes.subscribeQueues(topic)).toEqual([]);
    expect(await routes.publishQueues(topic)).toEqual([]);
  });

  it('fails over between name servers: a dead one listed first or second does not matter', async () => {
    const topic = uniqueName('failover');
    await harness.createTopic(topic, 2);
    const dead = `127.0.0.1:${await deadPort()}`;
    for (const nameServer of [`${dead};${harness.cluster.namesrvAddr}`, [harness.cluster.namesrvAddr, dead]]) {
      for (let round = 0; round < 3; round++) {
        // Each client starts at a random name server; either way it gets the route.
        const app = await createConsumerApp({
          transport: clusterTransport(harness.cluster, { nameServer }),
          consumers: [],
          profile: 'fast',
          instanceName: uniqueName('fo'),
        });
        await app.start();
        try {
          expect(await app.transport.routes.subscribeQueues(topic)).toHaveLength(4);
        } finally {
          await app.stop();
        }
      }
    }
  });

  it('with only dead name servers, a route lookup fails with a retriable connection error', async () => {
    const app = await createConsumerApp({
      transport: clusterTransport(harness.cluster, { nameServer: `127.0.0.1:${await deadPort()}` }),
      consumers: [],
      profile: 'fast',
    });
    await app.start();
    try {
      const error: unknown = await app.transport.routes.subscribeQueues('t').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(RemotingConnectionError);
      expect((error as RemotingConnectionError).retriable).toBe(true);
    } finally {
      await app.stop();
    }
  });

  it('a consumer started before its topic exists picks it up, and later its added queues, from the refreshed route', async () => {
    const topic = uniqueName('late');
    const group = uniqueName('g');
    const seen = new Deliveries();
    const app = await harness.app([
      consumerClass({ group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' }, (m: Message<{ seq: number }>) =>
        seen.record(m.payload.seq),
      ),
    ]);
    const owned = () =>
      app
        .consumer(group)
        .status()
        .queues.filter((q) => q.mq.topic === topic).length;
    expect(owned()).toBe(0);
    // Created by another client (the harness's admin app): this consumer learns it from its periodic refresh.
    await harness.createTopic(topic, 1);
    await waitFor(() => owned() === 2, { timeoutMs: 10_000 });
    await harness.createTopic(topic, 3);
    await waitFor(() => owned() === 6, { timeoutMs: 10_000 });
    await harness.produce(topic, 60);
    await waitFor(() => seen.unique === 60);
    expect(seen.missing(60)).toEqual([]);
  });
});
