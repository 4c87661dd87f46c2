import { ConfigurationError } from '../errors/configuration.error';
import type { AllocationStrategy, StrategyOption } from '../spi/allocation-strategy';

/** Strategies by RocketMQ name, per app. Core registers "AVG"; the allocation plugin registers the rest. */
export class StrategyRegistry {
  private readonly byName = new Map<string, AllocationStrategy>();

  register(strategy: AllocationStrategy): void {
    this.byName.set(strategy.name, strategy);
  }

  names(): string[] {
    return [...this.byName.keys()].sort();
  }

  /** Resolves a strategy option; an unknown name is a ConfigurationError listing the known ones. */
  resolve(option: StrategyOption, source: string): AllocationStrategy {
    if (typeof option === 'string') {
      const found = this.byName.get(option);
      if (!found)
        throw new ConfigurationError({
          source,
          option: 'strategy',
          value: option,
          allowed: `one of ${this.names().join(', ')} (register more with plugins, e.g. allocationStrategies())`,
        });
      return found;
    }
    if (typeof option === 'function') {
      const instance = new option();
      if (typeof instance.allocate !== 'function' || typeof instance.name !== 'string') {
        throw new ConfigurationError({
          source,
          option: 'strategy',
          value: option,
          allowed: 'a class implementing AllocationStrategy (name, allocate)',
        });
      }
      return instance;
    }
    return option;
  }
}
