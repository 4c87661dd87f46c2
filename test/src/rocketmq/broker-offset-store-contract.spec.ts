import { brokerOffsetStore, createConsumerApp, parseSubscription, retryTopicOf, type ConsumerApp } from '@mqkit/core';
import { describeOffsetStoreContract, uniqueName } from '@mqkit/core/testing';
import { afterAll, beforeAll, describe } from 'vitest';
import { RocketMqHarness, testCluster } from '../support/rocketmq-fixtures';

// The default store (offsets at the broker) on real RocketMQ 5.3.3. The contract uses the topics "T" and "U" with
// queue ids 0..3 on broker-a and broker-b, and the group's retry topic. The test brokers run with
// autoCreateTopicEnable=false, and a 5.3.3 broker refuses UPDATE_CONSUMER_OFFSET for an unknown topic (17) or an
// unknown group (26): the topics are created once, and each case's fresh group is registered by a heartbeat
// (which also makes both brokers create %RETRY%<group>).
let harness: RocketMqHarness;
beforeAll(async () => {
  harness = new RocketMqHarness(await testCluster());
  await harness.createTopic('T', 4);
  await harness.createTopic('U', 4);
});
afterAll(async () => harness?.close());

describe('broker offset store on real RocketMQ', () =>
  describeOffsetStoreContract('broker (RocketMQ 5.3.3)', {
    // RocketMQ's broker overwrites a committed offset (ConsumerOffsetManager.commitOffset): a stale member's late
    // commit can lower it, so the two cases that need a maximum-keeping store are left out, as on the embedded broker.
    keepsMaximum: false,
    // The broker keeps offsets as longs: there is no bad stored data to read.
    holdsBadData: false,
    backend: async () => {
      const group = uniqueName('contract');
      const apps: ConsumerApp[] = [];
      let registered = false;
      return {
        group,
        async createStore() {
          const app = await createConsumerApp({
            transport: harness.transport(),
            consumers: [],
            profile: 'fast',
            instanceName: uniqueName('member'),
          });
          await app.start();
          apps.push(app);
          if (!registered) {
            const { membership } = app.transport;
            const subscriptions = ['T', 'U', retryTopicOf(group)].map((topic) => parseSubscription(topic, '*'));
            await membership.heartbeat([
              { group, messageModel: 'CLUSTERING', consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET', subscriptions },
            ]);
            registered = true;
          }
          return brokerOffsetStore().create({
            group,
            clientId: app.clientId,
            instanceName: undefined,
            messageModel: 'CLUSTERING',
            container: app.container,
            events: app.events,
            transport: app.transport,
          });
        },
        dispose: async () => {
          await Promise.all(apps.map((a) => a.stop({ timeoutMs: 2_000 })));
        },
      };
    },
  }));
