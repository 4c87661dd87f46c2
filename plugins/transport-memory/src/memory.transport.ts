import type { GroupMembership, TransportPlugin, TransportRoles } from '@mqkit/core';
import { Subject, share } from 'rxjs';
import { EmbeddedBroker } from './embedded-broker';

export interface MemoryTransportOptions {
  /** The broker to connect to; default the process-wide `EmbeddedBroker.default()`. */
  readonly broker?: EmbeddedBroker;
}

/**
 * The embedded transport: every role core needs, answered in-process by an EmbeddedBroker. The default for
 * development, tests and the sample; no external service.
 *
 * @example
 * ```ts
 * const broker = new EmbeddedBroker({ brokerNames: ['broker-a', 'broker-b'] });
 * const app = await createConsumerApp({ transport: memoryTransport({ broker }), consumers: [OrderConsumer] });
 * ```
 */
export function memoryTransport(options: MemoryTransportOptions = {}): TransportPlugin {
  return {
    kind: 'transport',
    name: 'memory',
    async connect({ clientId, callbacks }): Promise<TransportRoles> {
      const broker = options.broker ?? EmbeddedBroker.default();
      const notices = new Subject<string>();
      broker.connect(clientId, {
        notifyConsumerIdsChanged: (group) => notices.next(group),
        resetOffsets: async (group, offsets) => {
          await callbacks?.resetOffsets(group, offsets);
        },
        consumeDirectly: async (group, record, brokerName) => callbacks?.consumeDirectly(group, record, brokerName),
        checkTransaction: async (group, record) => callbacks?.checkTransaction?.(group, record),
        receiveReply: (record) => callbacks?.receiveReply?.(record),
        runningInfo: (group) => callbacks?.runningInfo(group),
      });
      const membership: GroupMembership = {
        heartbeat: async (registrations, producerGroups) => broker.heartbeat(clientId, registrations, producerGroups),
        unregister: async (group) => broker.unregister(clientId, group),
        consumerIds: async (group) => broker.consumerIds(group),
        changes$: notices.asObservable(),
      };
      const bornHost = `${clientId.split('@')[0]}:0`;
      // Every call is deferred at least to a microtask, so callers see the same asynchrony as over a network.
      return {
        routes: {
          subscribeQueues: async (topic) => broker.subscribeQueues(topic),
          publishQueues: async (topic) => broker.publishQueues(topic),
          changes$: broker.routeChanges$.pipe(share()),
        },
        membership,
        puller: { pull: (request, signal) => broker.pull(request, signal) },
        offsets: {
          queryConsumerOffset: async (group, mq) => broker.queryConsumerOffset(group, mq),
          commitConsumerOffset: async (group, mq, offset) => broker.commitConsumerOffset(group, mq, offset),
          minOffset: async (mq) => broker.minOffset(mq),
          maxOffset: async (mq) => broker.maxOffset(mq),
          searchOffset: async (mq, timestamp) => broker.searchOffset(mq, timestamp),
        },
        retry: { sendBack: async (request) => broker.sendBack(request) },
        locks: {
          lock: async (group, mqs) => broker.lock(group, clientId, mqs),
          unlock: async (group, mqs) => broker.unlock(group, clientId, mqs),
        },
        // Sends answer on a later turn of the event loop, as over a network: a producer loop that only ever awaited
        // microtasks would starve every timer in the process (lock renewals, persists, heartbeats) until it finished.
        sender: {
          send: (mq, record) => onNextTurn(() => broker.send(mq, record, bornHost)),
          sendOneway: (mq, record) => onNextTurn(() => void broker.send(mq, record, bornHost)),
          sendBatch: (mq, records) => onNextTurn(() => broker.sendBatch(mq, records, bornHost)),
          endTransaction: async (request) => broker.endTransaction(request),
          sendReply: (request) => onNextTurn(() => broker.sendReply(request, bornHost)),
        },
        topicAdmin: { createTopic: async (o) => broker.createTopic(o) },
        subscriptionCheck: { check: async (_group, subscription) => broker.checkSubscription(subscription) },
        // Every method is async: answers come on a later microtask, as over a network.
        clusterAdmin: broker.admin,
        offsetAdmin: {
          resetOffsetByTimestamp: async (group, topic, timestamp) =>
            void (await broker.resetOffsetByTimestamp(group, topic, timestamp)),
        },
        close: async () => {
          broker.disconnect(clientId);
          notices.complete();
        },
      };
    },
  };
}

/** Runs `work` now and settles with its outcome on the next turn of the event loop. */
function onNextTurn<T>(work: () => T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let outcome: { ok: true; value: T } | { ok: false; error: unknown };
    try {
      outcome = { ok: true, value: work() };
    } catch (error) {
      outcome = { ok: false, error };
    }
    setImmediate(() => (outcome.ok ? resolve(outcome.value) : reject(outcome.error)));
  });
}
