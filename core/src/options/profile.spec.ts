import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../errors/configuration.error';
import { DEFAULT_PROFILE, FAST_PROFILE, resolveProfile } from './profile';

describe('resolveProfile', () => {
  it('names the defaults and the fast profile; overrides start from the base they name', () => {
    expect(resolveProfile(undefined)).toBe(DEFAULT_PROFILE);
    expect(resolveProfile('fast')).toBe(FAST_PROFILE);
    expect(resolveProfile({ base: 'fast', persistIntervalMs: 50 })).toMatchObject({
      name: 'custom',
      persistIntervalMs: 50,
      rebalanceIntervalMs: FAST_PROFILE.rebalanceIntervalMs,
    });
  });

  it('a stall is two heartbeat intervals unless set: lowering the heartbeat lowers it', () => {
    expect(DEFAULT_PROFILE.stallThresholdMs).toBe(2 * DEFAULT_PROFILE.heartbeatIntervalMs);
    expect(resolveProfile({ heartbeatIntervalMs: 3_000 }).stallThresholdMs).toBe(6_000);
    expect(resolveProfile({ heartbeatIntervalMs: 3_000, stallThresholdMs: 20_000 }).stallThresholdMs).toBe(20_000);
  });

  it('an unknown name or key, or an interval out of range, fails naming the option and the allowed range', () => {
    const issuesOf = (option: unknown) => {
      try {
        resolveProfile(option as never);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigurationError);
        return (error as ConfigurationError).issues.map((i) => `${i.option}: ${i.allowed}`);
      }
      return [];
    };
    expect(issuesOf('quick')).toEqual(['profile: one of default, fast']);
    expect(issuesOf({ unroutedLookupMs: 0, persistIntervalMs: -1, base: 'slow' })).toEqual([
      'profile.base: one of default, fast',
      'profile.unroutedLookupMs: an integer in [50, 86400000]',
      'profile.persistIntervalMs: an integer in [0, 86400000]',
    ]);
    expect(issuesOf({ rebalanceIntervalMS: 1_000 })[0]).toMatch(
      /^profile\.rebalanceIntervalMS: one of rebalanceIntervalMs, /,
    );
    expect(issuesOf({ base: 'fast', unroutedLookupMs: 50 })).toEqual([]);
  });
});
