import { compareMessageQueues } from '@mqkit/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RocketMqHarness, testCluster, uniqueName } from './rocketmq-fixtures';

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
});
