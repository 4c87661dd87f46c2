import type { DependencyContainer } from 'tsyringe';
import type { EventBus } from '../events/event-bus';
import type { Profile } from '../options/profile';
import type { ConsumerStatus } from '../model/consumer-status';
import type { MqkitPlugin, PluginContext } from '../spi/plugin';
import { toError } from '../util/deferred';

/** Registers plugins into one container and runs their teardowns, last registered first. */
export class PluginHost {
  private readonly teardowns: (() => Promise<void> | void)[] = [];
  private readonly context: PluginContext;

  constructor(
    private readonly container: DependencyContainer,
    base: { clientId: string; profile: Profile; namespace: string | undefined; events: EventBus },
  ) {
    this.context = { ...base, addTeardown: (fn) => this.teardowns.push(fn), consumers: () => this.consumers() };
  }

  /** What `PluginContext.consumers` reads: the consumer app sets it; a producer has none. */
  consumers: () => readonly ConsumerStatus[] = () => [];

  async register(plugin: MqkitPlugin): Promise<void> {
    await plugin.register(this.container, this.context);
  }

  /** Runs every teardown; errors are collected and reported together, never hidden. */
  async teardown(): Promise<void> {
    const errors: Error[] = [];
    while (this.teardowns.length > 0) {
      const fn = this.teardowns.pop()!;
      try {
        await fn();
      } catch (error) {
        errors.push(toError(error));
      }
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, `${errors.length} plugin teardowns failed`);
  }
}
