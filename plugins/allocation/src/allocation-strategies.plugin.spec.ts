import { AllocateMessageQueueAveragely, ConfigurationError } from '@mqkit/core';
import { describe, expect, it } from 'vitest';
import { allocationStrategies, BUILT_IN_STRATEGY_NAMES } from './allocation-strategies.plugin';
import { AllocateMachineRoomNearby } from './strategies/machine-room-nearby.strategy';

// Registration into a real app container is covered end to end in test/src/allocation-rolling-restart.spec.ts.
describe('allocationStrategies()', () => {
  const nearby = new AllocateMachineRoomNearby(new AllocateMessageQueueAveragely(), {
    brokerDeployIn: () => 'hz',
    consumerDeployIn: () => 'hz',
  });

  it('is a plugin named allocation that registers the no-argument strategies', () => {
    const plugin = allocationStrategies();
    expect(plugin.name).toBe('allocation');
    expect(BUILT_IN_STRATEGY_NAMES).toEqual(['AVG_BY_CIRCLE', 'CONSISTENT_HASH', 'BALANCED_RENDEZVOUS']);
    expect(allocationStrategies({ strategies: [nearby] }).name).toBe('allocation');
  });

  it('rejects extras that are not strategies or that reuse a registered name', () => {
    expect(() => allocationStrategies({ strategies: [{} as never] })).toThrow(ConfigurationError);
    expect(() => allocationStrategies({ strategies: [new AllocateMessageQueueAveragely()] })).toThrow(
      /names not already registered/,
    );
    expect(() => allocationStrategies({ strategies: [nearby, nearby] })).toThrow(ConfigurationError);
  });
});
