import 'reflect-metadata';
import { container as rootContainer } from 'tsyringe';
import { ConfigurationError } from '../errors/configuration.error';
import { EventBus } from '../events/event-bus';
import { resolveProfile, type ProfileOption } from '../options/profile';
import type { TransportPlugin } from '../spi/plugin';
import type { MessageQueue } from '../model/message-queue';
import { Tokens } from '../spi/tokens';
import { buildClientId } from '../util/client-id';
import { PluginHost } from './plugin-host';

/** Cluster administration through a transport: what a deployment script or a test needs before consumers start. */
export interface Admin {
  /** Creates (or grows) a topic with `queues` queues on every master (or the listed brokers) and waits for its route. */
  createTopic(options: { topic: string; queues: number; brokers?: readonly string[] }): Promise<void>;
  /** Moves a group's offsets of a topic to a time; the broker pushes them to every running member. */
  resetOffsetByTimestamp(group: string, topic: string, timestamp: number): Promise<void>;
  /** The topic's readable queues, as consumers see them. */
  queues(topic: string): Promise<readonly MessageQueue[]>;
  close(): Promise<void>;
}

/**
 * An admin client on its own connection.
 *
 * @example
 * ```ts
 * const admin = await createAdmin({ transport: rocketmqTransport({ nameServer: '127.0.0.1:9876' }) });
 * await admin.createTopic({ topic: 'orders', queues: 8 });
 * await admin.close();
 * ```
 */
export async function createAdmin(options: { transport: TransportPlugin; profile?: ProfileOption; instanceName?: string }): Promise<Admin> {
  if (!options.transport || typeof options.transport.register !== 'function') {
    throw new ConfigurationError({ source: 'createAdmin', option: 'transport', value: options.transport, allowed: 'a transport plugin, e.g. memoryTransport() from @mqkit/transport-memory' });
  }
  const container = rootContainer.createChildContainer();
  const host = new PluginHost(container, { clientId: buildClientId({ instanceName: options.instanceName }), profile: resolveProfile(options.profile), events: new EventBus() });
  await host.register(options.transport);
  const role = <T>(token: symbol, name: string): T => {
    if (!container.isRegistered(token, true)) throw new ConfigurationError({ source: 'createAdmin', option: 'transport', value: options.transport.name, allowed: `a transport that provides ${name}` });
    return container.resolve<T>(token);
  };
  return {
    createTopic: (o) => role<{ createTopic: Admin['createTopic'] }>(Tokens.TopicAdmin as symbol, 'TopicAdmin').createTopic(o),
    resetOffsetByTimestamp: (group, topic, timestamp) =>
      role<{ resetOffsetByTimestamp: Admin['resetOffsetByTimestamp'] }>(Tokens.OffsetAdmin as symbol, 'OffsetAdmin').resetOffsetByTimestamp(group, topic, timestamp),
    queues: (topic) => role<{ subscribeQueues: (t: string) => Promise<readonly MessageQueue[]> }>(Tokens.RouteResolver as symbol, 'RouteResolver').subscribeQueues(topic),
    close: () => host.teardown(),
  };
}
