import type { ConsumerDefinition } from '../definition/consumer-definition';
import { ConfigurationError, type ConfigurationIssue } from '../errors/configuration.error';
import { ConsumerRuntime, type ConsumerRuntimeHost } from '../consumer/consumer-runtime';
import type { AllocationStrategy } from '../spi/allocation-strategy';
import type { ConsumerAppOptions } from './app-options';
import type { ClientHost } from './client-host';
import { GroupAssembly } from './group-assembly';

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
  const assembly = new GroupAssembly(host, options.offsetStore);
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
    const storeIssue = assembly.storeIssue(o.messageModel, source);
    if (storeIssue) issues.push(storeIssue);
    let strategy: AllocationStrategy | undefined;
    try {
      strategy = assembly.strategy(o.strategy, source);
    } catch (error) {
      if (error instanceof ConfigurationError) issues.push(...error.issues);
      else throw error;
    }
    if (issues.length > 0 || !strategy) continue;
    const store = assembly.store(definition.group, o.messageModel, options.instanceName);
    runtimes.push(new ConsumerRuntime(definition, runtimeHost, strategy, store));
  }
  if (issues.length > 0) throw new ConfigurationError(issues);
  return runtimes;
}
