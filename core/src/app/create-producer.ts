import type { EventBus } from '../events/event-bus';
import type { Producer } from '../producer/producer';
import { prepareProducerCompression, resolveProducerOptions, type ProducerOptions } from '../producer/producer-options';
import type { MqkitPlugin, TransportPlugin } from '../spi/plugin';
import type { BrokerCallbacks, MessageSender } from '../spi/transport.roles';
import { toError } from '../util/deferred';
import { ClientHost, type ClientHostOptions } from './client-host';
import type { TraceStatus } from '../trace/trace-dispatcher';
import { clientProducer } from './client-producer';
import { Heartbeats } from './heartbeats';

export interface StandaloneProducerOptions extends ProducerOptions, ClientHostOptions {
  readonly transport: TransportPlugin;
  /** Plugins registered into the producer's container (metrics, tracing: their send hooks wrap every call). */
  readonly plugins?: readonly MqkitPlugin[];
}

/** A started producer with its own client id and transport connection; `stop()` waits for sends in flight. */
export interface StandaloneProducer {
  readonly producer: Producer;
  readonly clientId: string;
  readonly events: EventBus;
  send: Producer['send'];
  sendOneway: Producer['sendOneway'];
  sendBatch: Producer['sendBatch'];
  sendInTransaction: Producer['sendInTransaction'];
  request: Producer['request'];
  /** What the message trace did (queued, sent, dropped, failed records); undefined without `enableMsgTrace`. */
  traceStatus(): TraceStatus | undefined;
  /** Waits for sends in flight, sends the queued trace records, then closes the connection. */
  stop(): Promise<void>;
}

/**
 * A producer without consumers, for services that only send.
 *
 * @example
 * ```ts
 * const producer = await createProducer({ transport: memoryTransport(), group: 'order-producer' });
 * await producer.send({ topic: 'orders', payload: { id: 1 }, tags: 'created', keys: 'order-1' });
 * await producer.stop();
 * ```
 */
export async function createProducer(options: StandaloneProducerOptions): Promise<StandaloneProducer> {
  const resolved = resolveProducerOptions(options);
  await prepareProducerCompression(resolved);
  const host = new ClientHost('createProducer', options);
  // A producer answers the broker's check-backs (transactional) and takes the replies to its requests; the other
  // callbacks are a consumer's.
  let producer: Producer | undefined;
  const callbacks: BrokerCallbacks = {
    resetOffsets: async () => undefined,
    runningInfo: () => undefined,
    consumeDirectly: async () => undefined,
    checkTransaction: async (group, record) =>
      producer?.transactional && group === resolved.group ? producer.checkTransaction(record) : undefined,
    receiveReply: (record) => producer?.receiveReply(record),
  };
  const roles = await host.connect(options.transport, callbacks);
  let sender: MessageSender;
  try {
    sender = host.require('sender', 'the producer');
    await host.register(options.plugins ?? []);
  } catch (error) {
    await host.close();
    throw error;
  }
  const controller = new AbortController();
  // Beats only once the group has something to register: transactional from the start, or from its first request.
  const heartbeats = new Heartbeats(
    roles.membership,
    () => [],
    (error) =>
      host.events.emit('producer.error', { group: resolved.group, topic: '', error: toError(error), attempt: 0 }),
    controller.signal,
    () => (producer?.heartbeats ? [resolved.group] : []),
  );
  const client = clientProducer(host, resolved, roles.routes, sender, () => heartbeats.beatNow());
  producer = client.producer;
  heartbeats.start(host.profile.heartbeatIntervalMs);
  if (producer.transactional) heartbeats.now();
  const started = producer;
  return {
    producer: started,
    clientId: host.clientId,
    events: host.events,
    send: (message, options) => started.send(message, options),
    sendOneway: (message, options) => started.sendOneway(message, options),
    sendBatch: (messages) => started.sendBatch(messages),
    sendInTransaction: (message, local) => started.sendInTransaction(message, local),
    request: (message, options) => started.request(message, options),
    traceStatus: () => client.trace?.status(),
    stop: async () => {
      await client.stop();
      controller.abort();
      await heartbeats.stopped();
      await host.close();
    },
  };
}
