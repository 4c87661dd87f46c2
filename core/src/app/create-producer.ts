import 'reflect-metadata';
import { container as rootContainer, type DependencyContainer, type InjectionToken } from 'tsyringe';
import { ConfigurationError } from '../errors/configuration.error';
import { EventBus } from '../events/event-bus';
import { resolveProfile, type ProfileOption } from '../options/profile';
import { Producer } from '../producer/producer';
import { resolveProducerOptions, type ProducerOptions } from '../producer/producer-options';
import type { TransportPlugin } from '../spi/plugin';
import { Tokens } from '../spi/tokens';
import { buildClientId } from '../util/client-id';
import { PluginHost } from './plugin-host';

export interface StandaloneProducerOptions extends ProducerOptions {
  readonly transport: TransportPlugin;
  readonly profile?: ProfileOption;
  readonly instanceName?: string;
  readonly clientIp?: string;
  readonly container?: DependencyContainer;
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
  if (!options.transport || typeof options.transport.register !== 'function') {
    throw new ConfigurationError({ source: 'createProducer', option: 'transport', value: options.transport, allowed: 'a transport plugin, e.g. memoryTransport() from @mqkit/transport-memory' });
  }
  const events = new EventBus();
  const clientId = buildClientId(options);
  const container = (options.container ?? rootContainer).createChildContainer();
  const host = new PluginHost(container, { clientId, profile: resolveProfile(options.profile), events });
  await host.register(options.transport);
  for (const [token, name] of [[Tokens.RouteResolver, 'RouteResolver'], [Tokens.MessageSender, 'MessageSender']] as [InjectionToken<unknown>, string][]) {
    if (!container.isRegistered(token, true)) {
      await host.teardown();
      throw new ConfigurationError({ source: 'createProducer', option: 'transport', value: options.transport.name, allowed: `a transport that provides ${name}` });
    }
  }
  const producer = new Producer({ options: resolved, routes: container.resolve(Tokens.RouteResolver), sender: container.resolve(Tokens.MessageSender), events });
  return {
    producer,
    clientId,
    events,
    send: (message, options) => producer.send(message, options),
    sendOneway: (message, options) => producer.sendOneway(message, options),
    sendBatch: (messages) => producer.sendBatch(messages),
    stop: async () => {
      await producer.stop();
      await host.teardown();
    },
  };
}
