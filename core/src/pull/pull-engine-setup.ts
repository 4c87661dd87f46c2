import type { ClientHost } from '../app/client-host';
import { GroupAssembly } from '../app/group-assembly';
import { ConfigurationError } from '../errors/configuration.error';
import { ByteBudget } from '../consumer/queue/byte-budget';
import { groupContext, type GroupContext } from '../consumer/queue/group-context';
import type { AllocationStrategy } from '../spi/allocation-strategy';
import type { OffsetStore } from '../spi/offset-store';
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
  return groupContext({
    group: resolved.group.group,
    clientId: host.clientId,
    options: resolved.group,
    profile: host.profile,
    events: host.events,
    budget: new ByteBudget(resolved.maxCachedBytes),
    namespace: resolved.namespace,
    signal,
  });
}

/** The group's strategy and offset store, resolved as a consumer app resolves them (see GroupAssembly). */
export function strategyAndStore(
  host: ClientHost,
  options: PullConsumerOptions,
  resolved: ResolvedPullConsumerOptions,
): { strategy: AllocationStrategy; store: OffsetStore } {
  const assembly = new GroupAssembly(host, options.offsetStore);
  const { group, messageModel } = resolved.group;
  const issue = assembly.storeIssue(messageModel, 'createPullConsumer');
  if (issue) throw new ConfigurationError([issue]);
  return {
    strategy: assembly.strategy(resolved.group.strategy, 'createPullConsumer'),
    store: assembly.store(group, messageModel, options.instanceName),
  };
}
