import { AllocateMessageQueueAveragely } from '../allocation/averagely.strategy';
import { StrategyRegistry } from '../allocation/strategy-registry';
import type { ConsumerDefinition } from '../definition/consumer-definition';
import { ConfigurationError, type ConfigurationIssue } from '../errors/configuration.error';
import { brokerOffsetStore } from '../offsets/broker-offset-store';
import { adaptOffsetStore } from '../offsets/legacy-offset-store.adapter';
import { ConsumerRuntime, type ConsumerRuntimeHost } from '../consumer/consumer-runtime';
import type { AllocationStrategy } from '../spi/allocation-strategy';
import type { OffsetStoreProvider } from '../spi/offset-store';
import { Tokens } from '../spi/tokens';
import type { ConsumerAppOptions } from './app-options';
import type { ClientHost } from './client-host';

/**
 * Turns validated definitions into one runtime per group, checking what only the app knows: the transport roles
 * a group's options need, the offset store's message models, the strategy's name. Every issue of every group is
 * collected into one ConfigurationError before anything starts.
 */
export function createConsumerGroups(
  definitions: readonly ConsumerDefinition[],
  host: ClientHost,
  options: ConsumerAppOptions,
  runtimeHost: ConsumerRuntimeHost,
): ConsumerRuntime[] {
  const { container } = host;
  const registry = new StrategyRegistry();
  registry.register(new AllocateMessageQueueAveragely());
  if (container.isRegistered(Tokens.AllocationStrategy, true)) {
    for (const s of container.resolveAll(Tokens.AllocationStrategy)) registry.register(s);
  }
  const provider: OffsetStoreProvider =
    options.offsetStore ??
    (container.isRegistered(Tokens.OffsetStoreProvider, true)
      ? container.resolve(Tokens.OffsetStoreProvider)
      : brokerOffsetStore());
  const issues: ConfigurationIssue[] = [];
  const runtimes: ConsumerRuntime[] = [];
  for (const definition of definitions) {
    const source = definition.sources[0] ?? definition.group;
    const o = definition.options;
    if (o.consumeMode === 'ORDERLY' || o.exclusiveHandoff) {
      const missing = host.missing(
        'locks',
        `${o.consumeMode === 'ORDERLY' ? 'consumeMode ORDERLY' : 'exclusiveHandoff'} of group ${definition.group}`,
        source,
      );
      if (missing) issues.push(missing);
    }
    if (definition.subscriptions.some((s) => s.reply) && !host.roles.sender?.sendReply) {
      issues.push({
        source,
        option: 'reply',
        value: true,
        allowed: 'a transport that sends replies (MessageSender.sendReply)',
      });
    }
    if (!provider.models.includes(o.messageModel)) {
      issues.push({
        source,
        option: 'offsetStore',
        value: provider.name,
        allowed: `an offset store that serves ${o.messageModel} (${provider.name} serves ${provider.models.join(', ')}${o.messageModel === 'BROADCASTING' ? '; use fileOffsetStore() from @mqkit/offset-store-file' : ''})`,
      });
    }
    let strategy: AllocationStrategy | undefined;
    try {
      strategy = registry.resolve(o.strategy, source);
    } catch (error) {
      if (error instanceof ConfigurationError) issues.push(...error.issues);
      else throw error;
    }
    if (issues.length > 0 || !strategy) continue;
    const created = provider.create({
      group: definition.group,
      clientId: host.clientId,
      instanceName: options.instanceName,
      messageModel: o.messageModel,
      container,
      events: host.events,
      transport: host.roles,
    });
    runtimes.push(new ConsumerRuntime(definition, runtimeHost, strategy, adaptOffsetStore(created, provider.name)));
  }
  if (issues.length > 0) throw new ConfigurationError(issues);
  return runtimes;
}
