import {
  Tokens,
  type BrokerCallbacks,
  type BrokerOffsets,
  type GroupMembership,
  type MessagePuller,
  type MessageSender,
  type QueueLocks,
  type RetryChannel,
  type RouteResolver,
  type TopicAdmin,
  type OffsetAdmin,
  type TransportPlugin,
} from '@mqkit/core';
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
    register(container, context) {
      const broker = options.broker ?? EmbeddedBroker.default();
      const clientId = context.clientId;
      const notices = new Subject<string>();
      // Resolved lazily: the app registers its callbacks before plugins, but a producer-only host has none.
      const callbacks = (): BrokerCallbacks | undefined => (container.isRegistered(Tokens.BrokerCallbacks, true) ? container.resolve(Tokens.BrokerCallbacks) : undefined);
      broker.connect(clientId, {
        notifyConsumerIdsChanged: (group) => notices.next(group),
        resetOffsets: async (group, offsets) => {
          await callbacks()?.resetOffsets(group, offsets);
        },
      });
      // Every call is deferred to a microtask so callers see the same asynchrony as over a network.
      const routes: RouteResolver = {
        subscribeQueues: async (topic) => broker.subscribeQueues(topic),
        publishQueues: async (topic) => broker.publishQueues(topic),
        changes$: broker.routeChanges$.pipe(share()),
      };
      const membership: GroupMembership = {
        heartbeat: async (registrations) => broker.heartbeat(clientId, registrations),
        unregister: async (group) => broker.unregister(clientId, group),
        consumerIds: async (group) => broker.consumerIds(group),
        changes$: notices.asObservable(),
      };
      const puller: MessagePuller = { pull: (request, signal) => broker.pull(request, signal) };
      const offsets: BrokerOffsets = {
        queryConsumerOffset: async (group, mq) => broker.queryConsumerOffset(group, mq),
        commitConsumerOffset: async (group, mq, offset) => broker.commitConsumerOffset(group, mq, offset),
        minOffset: async (mq) => broker.minOffset(mq),
        maxOffset: async (mq) => broker.maxOffset(mq),
        searchOffset: async (mq, timestamp) => broker.searchOffset(mq, timestamp),
      };
      const retry: RetryChannel = { sendBack: async (request) => broker.sendBack(request) };
      const locks: QueueLocks = {
        lock: async (group, mqs) => broker.lock(group, clientId, mqs),
        unlock: async (group, mqs) => broker.unlock(group, clientId, mqs),
      };
      const bornHost = `${clientId.split('@')[0]}:0`;
      // Sends answer on a later turn of the event loop, as over a network: a producer loop that only ever awaited
      // microtasks would starve every timer in the process (lock renewals, persists, heartbeats) until it finished.
      const sender: MessageSender = {
        send: (mq, record) => onNextTurn(() => broker.send(mq, record, bornHost)),
        sendOneway: (mq, record) => onNextTurn(() => void broker.send(mq, record, bornHost)),
        sendBatch: (mq, records) => onNextTurn(() => broker.sendBatch(mq, records, bornHost)),
      };
      const admin: TopicAdmin = { createTopic: async (o) => broker.createTopic(o) };
      const offsetAdmin: OffsetAdmin = {
        resetOffsetByTimestamp: async (group, topic, timestamp) => void (await broker.resetOffsetByTimestamp(group, topic, timestamp)),
      };
      container.register(Tokens.RouteResolver, { useValue: routes });
      container.register(Tokens.GroupMembership, { useValue: membership });
      container.register(Tokens.MessagePuller, { useValue: puller });
      container.register(Tokens.BrokerOffsets, { useValue: offsets });
      container.register(Tokens.RetryChannel, { useValue: retry });
      container.register(Tokens.QueueLocks, { useValue: locks });
      container.register(Tokens.MessageSender, { useValue: sender });
      container.register(Tokens.TopicAdmin, { useValue: admin });
      container.register(Tokens.OffsetAdmin, { useValue: offsetAdmin });
      context.addTeardown(() => {
        broker.disconnect(clientId);
        notices.complete();
      });
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
