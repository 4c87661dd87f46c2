import type { DependencyContainer } from 'tsyringe';
import type { EventBus } from '../events/event-bus';
import type { Profile } from '../options/profile';
import type { ConsumerStatus } from '../model/consumer-status';

/** What a plugin gets when an app registers it. */
export interface PluginContext {
  /** `<ip>@<instanceName>` of the app registering the plugin. */
  readonly clientId: string;
  readonly profile: Profile;
  /**
   * The client's RocketMQ namespace, if any. Events and `consumers()` name groups and queue topics as the broker
   * knows them (`<namespace>%<name>`); `withoutNamespace(namespace, name)` gives the application's names.
   */
  readonly namespace: string | undefined;
  readonly events: EventBus;
  /** Registers a teardown run when the app stops, after its consumers drained (last registered runs first). */
  addTeardown(teardown: () => Promise<void> | void): void;
  /**
   * The client's consumer groups as `status()` reports them (queues, cached messages, lag), read when a plugin
   * needs it (a metrics scrape); empty for a producer.
   */
  consumers(): readonly ConsumerStatus[];
}

/**
 * A plugin is a value: a name and a register function that puts its services into the app's own child
 * container (allocation strategies, an offset store provider). Nothing registers itself at import time.
 * Broker transports are not plugins of this kind: see {@link TransportPlugin}.
 */
export interface MqkitPlugin {
  readonly name: string;
  register(container: DependencyContainer, context: PluginContext): void | Promise<void>;
}

export type { TransportPlugin } from './transport.plugin';
