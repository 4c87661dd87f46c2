import type { EventBus } from '../events/event-bus';
import { Producer } from '../producer/producer';
import { resolveProducerOptions, type ProducerOptions } from '../producer/producer-options';
import type { TransportPlugin } from '../spi/plugin';
import { ClientHost, type ClientHostOptions } from './client-host';

export interface StandaloneProducerOptions extends ProducerOptions, ClientHostOptions {
  readonly transport: TransportPlugin;
}

/** A started producer with its own client id and transport connection; `stop()` waits for sends in flight. */
export interface StandaloneProducer {
  readonly producer: Producer;
  readonly clientId: string;
  readonly events: EventBus;
  send: Producer['send'];
  sendOneway: Producer['sendOneway'];
  sendBatch: Producer['sendBatch'];
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
  const host = new ClientHost('createProducer', options);
  const roles = await host.connect(options.transport);
  let sender;
  try {
    sender = host.require('sender', 'the producer');
  } catch (error) {
    await host.close();
    throw error;
  }
  const producer = new Producer({ options: resolved, routes: roles.routes, sender, events: host.events });
  return {
    producer,
    clientId: host.clientId,
    events: host.events,
    send: (message, options) => producer.send(message, options),
    sendOneway: (message, options) => producer.sendOneway(message, options),
    sendBatch: (messages) => producer.sendBatch(messages),
    stop: async () => {
      await producer.stop();
      await host.close();
    },
  };
}
