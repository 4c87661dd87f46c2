import { AllocateMessageQueueAveragely } from '../allocation/averagely.strategy';
import { StrategyRegistry } from '../allocation/strategy-registry';
import type { ClientHost } from '../app/client-host';
import { ConfigurationError } from '../errors/configuration.error';
import { brokerOffsetStore } from '../offsets/broker-offset-store';
import { adaptOffsetStore } from '../offsets/legacy-offset-store.adapter';
import { ByteBudget } from '../consumer/queue/byte-budget';
import { ConsumeStats } from '../consumer/queue/consume-stats';
import type { GroupContext } from '../consumer/queue/group-context';
import type { AllocationStrategy } from '../spi/allocation-strategy';
import type { OffsetStore, OffsetStoreProvider } from '../spi/offset-store';
import { Tokens } from '../spi/tokens';
import type { TransportRoles } from '../spi/transport.plugin';
import type { PullConsumerOptions, ResolvedPullConsumerOptions } from './pull-consumer-options';

/*
 * What a pull consumer's engine is made of, resolved the way a push consumer app resolves it for its groups: from
 * the options first, then from what the plugins registered in the client's container, then core's defaults.
 */

/** The group context a pull consumer's engine runs in; `signal` stops its pulls and timers. */
export function pullGroupContext(
  host: ClientHost,
  resolved: ResolvedPullConsumerOptions,
  signal: AbortSignal,
): GroupContext {
  return {
    group: resolved.group.group,
    clientId: host.clientId,
    options: resolved.group,
    profile: host.profile,
    events: host.events,
    budget: new ByteBudget(resolved.maxCachedBytes),
    stats: new ConsumeStats(),
    namespace: resolved.namespace,
    signal,
  };
}

/** The strategy option's, by name among AVG and those the plugins registered, or the given one. */
export function allocationStrategy(host: ClientHost, resolved: ResolvedPullConsumerOptions): AllocationStrategy {
  const registry = new StrategyRegistry();
  registry.register(new AllocateMessageQueueAveragely());
  if (host.container.isRegistered(Tokens.AllocationStrategy, true))
    for (const s of host.container.resolveAll(Tokens.AllocationStrategy)) registry.register(s);
  return registry.resolve(resolved.group.strategy, 'createPullConsumer');
}

/**
 * The option's store, else a plugin's, else the broker's; one that cannot serve the message model is refused, and a
 * LegacyOffsetStore is wrapped.
 */
export function offsetStore(
  host: ClientHost,
  options: PullConsumerOptions,
  resolved: ResolvedPullConsumerOptions,
  transport: TransportRoles,
): OffsetStore {
  const provider: OffsetStoreProvider =
    options.offsetStore ??
    (host.container.isRegistered(Tokens.OffsetStoreProvider, true)
      ? host.container.resolve(Tokens.OffsetStoreProvider)
      : brokerOffsetStore());
  const { group, messageModel } = resolved.group;
  if (!provider.models.includes(messageModel)) {
    throw new ConfigurationError({
      source: 'createPullConsumer',
      option: 'offsetStore',
      value: provider.name,
      allowed: `an offset store that serves ${messageModel}`,
    });
  }
  const created = provider.create({
    group,
    clientId: host.clientId,
    instanceName: options.instanceName,
    messageModel,
    container: host.container,
    events: host.events,
    transport,
  });
  return adaptOffsetStore(created, provider.name);
}
