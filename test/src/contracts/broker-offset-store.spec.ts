import { randomUUID } from 'node:crypto';
import { EventBus, FAST_PROFILE, brokerOffsetStore, createConsumerApp } from '@mqkit/core';
import { describeOffsetStoreContract } from '@mqkit/core/testing';
import { EmbeddedBroker, memoryTransport } from '@mqkit/transport-memory';
import { describe } from 'vitest';

// The default store (offsets at the broker) on the embedded broker. Each member is its own client: its own child
// container and its own connection of the memory transport, as an app would have.
describe('broker offset store on the embedded broker', () =>
  describeOffsetStoreContract('broker (embedded)', {
    // RocketMQ's broker overwrites a committed offset (ConsumerOffsetManager.commitOffset), so a stale member's
    // late commit can lower it; the embedded broker does the same. The two cases that need the maximum are skipped.
    keepsMaximum: false,
    // The broker keeps offsets as numbers: there is no bad stored data to read.
    holdsBadData: false,
    backend: () => {
      const broker = new EmbeddedBroker();
      const group = `contract-${randomUUID().slice(0, 8)}`;
      let members = 0;
      return {
        group,
        async createStore() {
          // An unstarted app is the public way to get a fresh child container (tsyringe is core's dependency).
          const { container } = await createConsumerApp({ transport: memoryTransport({ broker }), consumers: [] });
          const events = new EventBus();
          const clientId = `127.0.0.1@contract-${++members}`;
          const transport = await memoryTransport({ broker }).connect({ clientId, profile: FAST_PROFILE, events });
          return brokerOffsetStore().create({
            group,
            clientId,
            instanceName: undefined,
            messageModel: 'CLUSTERING',
            container,
            events,
            transport,
          });
        },
        dispose: () => broker.close(),
      };
    },
  }));
