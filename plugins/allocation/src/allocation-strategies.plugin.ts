import { ConfigurationError, Tokens, type AllocationStrategy, type MqkitPlugin } from '@mqkit/core';
import { AllocateMessageQueueAveragelyByCircle } from './strategies/averagely-by-circle.strategy';
import { AllocateMessageQueueBalancedRendezvous } from './strategies/balanced-rendezvous.strategy';
import { AllocateMessageQueueConsistentHash } from './strategies/consistent-hash.strategy';

export interface AllocationStrategiesOptions {
  /**
   * More strategies to offer by name, e.g. a configured `AllocateMachineRoomNearby` so consumers can say
   * `strategy: 'MACHINE_ROOM_NEARBY-AVG'`. Names must be unique and must not reuse a built-in name.
   */
  readonly strategies?: Iterable<AllocationStrategy>;
}

/** The names this plugin registers by itself (core registers "AVG"). */
export const BUILT_IN_STRATEGY_NAMES: readonly string[] = ['AVG_BY_CIRCLE', 'CONSISTENT_HASH', 'BALANCED_RENDEZVOUS'];

/**
 * The allocation plugin: registers by name every strategy that needs no configuration, "AVG_BY_CIRCLE",
 * "CONSISTENT_HASH" (10 virtual nodes, as in Java) and "BALANCED_RENDEZVOUS", plus any `strategies` you pass.
 * ("AVG" is core's.) Strategies that need configuration (CONFIG, MACHINE_ROOM, MACHINE_ROOM_NEARBY, or a
 * CONSISTENT_HASH with another node count) can also be given to `@Consumer({ strategy })` as instances.
 *
 * @example
 * ```ts
 * const app = await createConsumerApp({
 *   transport: memoryTransport(),
 *   plugins: [allocationStrategies()],
 *   consumers: [OrderConsumer],   // @Consumer({ group: 'orders', topic: 'orders', strategy: 'BALANCED_RENDEZVOUS' })
 * });
 * ```
 */
export function allocationStrategies(options: AllocationStrategiesOptions = {}): MqkitPlugin {
  const extra = [...(options.strategies ?? [])];
  const taken = new Set(['AVG', ...BUILT_IN_STRATEGY_NAMES]);
  for (const strategy of extra) {
    if (
      !strategy ||
      typeof strategy.allocate !== 'function' ||
      typeof strategy.name !== 'string' ||
      strategy.name.length === 0
    ) {
      throw new ConfigurationError({
        source: 'allocationStrategies',
        option: 'strategies',
        value: strategy,
        allowed: 'AllocationStrategy instances (a non-empty name and allocate())',
      });
    }
    if (taken.has(strategy.name)) {
      throw new ConfigurationError({
        source: 'allocationStrategies',
        option: 'strategies',
        value: strategy.name,
        allowed: `names not already registered (${[...taken].join(', ')})`,
      });
    }
    taken.add(strategy.name);
  }
  return {
    name: 'allocation',
    register(container) {
      const all: AllocationStrategy[] = [
        new AllocateMessageQueueAveragelyByCircle(),
        new AllocateMessageQueueConsistentHash(),
        new AllocateMessageQueueBalancedRendezvous(),
        ...extra,
      ];
      for (const strategy of all) container.register(Tokens.AllocationStrategy, { useValue: strategy });
    },
  };
}
