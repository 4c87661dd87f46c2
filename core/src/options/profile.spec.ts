import { describe, expect, it } from 'vitest';
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
});
