import { ConfigurationError } from '../errors/configuration.error';
import { IssueCollector } from './option-checks';
/**
 * Every interval the runtime uses, with RocketMQ's defaults (docs/rocketmq-consumer-model.md#timing-defaults). Tests
 * use the fast profile: the same mechanics, shorter clocks.
 */
export interface Profile {
  readonly name: string;
  /** Rebalance period (RocketMQ: 20 s). */
  readonly rebalanceIntervalMs: number;
  /** Next rebalance when the last one was not balanced (1 s). */
  readonly rebalanceRetryMs: number;
  /** Minimum gap between two rebalances (1 s). */
  readonly rebalanceMinGapMs: number;
  /** Heartbeat period (30 s). */
  readonly heartbeatIntervalMs: number;
  /** Topic route refresh period (30 s). */
  readonly routeRefreshMs: number;
  /** Offset persist period (5 s). */
  readonly persistIntervalMs: number;
  /** Broker long-poll hold (15 s). */
  readonly pullSuspendMs: number;
  /** Client timeout of a pull (30 s). */
  readonly pullTimeoutMs: number;
  /** Back-off after a pull error (1 s). */
  readonly pullErrorDelayMs: number;
  /** Back-off after a FLOW_CONTROL answer (20 ms). */
  readonly pullFlowControlDelayMs: number;
  /** Local retry after a failed send-back (5 s). */
  readonly localRetryDelayMs: number;
  /** How long a released queue waits for its running handler calls before it is committed and released. */
  readonly drainTimeoutMs: number;
  /** Orderly / exclusive handoff: lock renew period (20 s). */
  readonly lockRenewMs: number;
  /** Orderly / exclusive handoff: how long the client trusts a lock after the last grant (30 s). */
  readonly lockClientExpiryMs: number;
  /** Orderly: force unlock of a released queue whose batch is still running (20 s). */
  readonly lockForceReleaseMs: number;
  /** Ordinary request timeout (3 s). */
  readonly requestTimeoutMs: number;
  /**
   * mqkit: a process whose clock moved this much past a 1 s tick was frozen (SIGSTOP, a VM pause, a swap storm)
   * long enough to have been dropped from its groups: it drops what it cached and reads its offsets again. Default
   * two heartbeat intervals (RocketMQ's brokers expire a member after four).
   */
  readonly stallThresholdMs: number;
  /**
   * mqkit: a queue that appears in the route after this member's first look at its topic (a broker back after a
   * crash) is taken only once it has been routed this long, unless this member itself consumed it last: its
   * previous owners write their offsets back to the broker first (see RouteArrivals). The same grace holds a queue
   * that a route change moved to this member from another one while the members stayed the same (a broker left
   * or came back): the old owner sees the new route up to a route watch later and releases the queue then (see
   * RouteMoves). Default: three route watches of the RocketMQ transport (1 s each while a broker is missing).
   */
  readonly routeArrivalGraceMs: number;
  /**
   * mqkit: while a subscribed topic has no route (not created yet), its route is looked up again this often, the
   * first time after half of it, instead of at the next route refresh (`routeRefreshMs`, 30 s): a topic created
   * after the consumer started is consumed within this long. Default 2 s.
   */
  readonly unroutedLookupMs: number;
}

export const DEFAULT_PROFILE: Profile = Object.freeze({
  name: 'default',
  rebalanceIntervalMs: 20_000,
  rebalanceRetryMs: 1_000,
  rebalanceMinGapMs: 1_000,
  heartbeatIntervalMs: 30_000,
  routeRefreshMs: 30_000,
  persistIntervalMs: 5_000,
  pullSuspendMs: 15_000,
  pullTimeoutMs: 30_000,
  pullErrorDelayMs: 1_000,
  pullFlowControlDelayMs: 20,
  localRetryDelayMs: 5_000,
  drainTimeoutMs: 20_000,
  lockRenewMs: 20_000,
  lockClientExpiryMs: 30_000,
  lockForceReleaseMs: 20_000,
  requestTimeoutMs: 3_000,
  stallThresholdMs: 60_000,
  routeArrivalGraceMs: 3_000,
  unroutedLookupMs: 2_000,
});

/** The same knobs, scaled for tests on one machine. */
export const FAST_PROFILE: Profile = Object.freeze({
  name: 'fast',
  rebalanceIntervalMs: 1_000,
  rebalanceRetryMs: 100,
  rebalanceMinGapMs: 20,
  heartbeatIntervalMs: 500,
  routeRefreshMs: 500,
  persistIntervalMs: 200,
  pullSuspendMs: 1_000,
  // A held pull can come back up to hold + 5 s late on a real broker (its hold scan runs every 5 s).
  pullTimeoutMs: 10_000,
  pullErrorDelayMs: 100,
  pullFlowControlDelayMs: 20,
  localRetryDelayMs: 200,
  drainTimeoutMs: 5_000,
  // Half the test brokers' 1 s lock lifetime, as RocketMQ trusts a lock 30 s of the broker's 60 s.
  lockRenewMs: 150,
  lockClientExpiryMs: 500,
  lockForceReleaseMs: 2_000,
  requestTimeoutMs: 3_000,
  // Not two heartbeats (1 s): a loaded test box can hold the event loop that long.
  stallThresholdMs: 10_000,
  // Two of the fast route refreshes plus a route watch.
  routeArrivalGraceMs: 2_000,
  unroutedLookupMs: 200,
});

export type ProfileOption = 'default' | 'fast' | (Partial<Profile> & { base?: 'default' | 'fast' });

/** A day: no interval of the runtime is meant to be longer. */
const MAX_INTERVAL_MS = 86_400_000;
/** Below this a topic without a route would be looked up back to back, its route cache cleared each time. */
const MIN_UNROUTED_LOOKUP_MS = 50;

/** Throws ConfigurationError naming each override that is not a profile interval, or is out of range. */
function checkOverrides(option: ProfileOption): void {
  const issues = new IssueCollector('profile');
  if (typeof option === 'string') {
    issues.oneOf('profile', option, ['default', 'fast']);
  } else {
    const { base, ...overrides } = option;
    issues.oneOf('profile.base', base, ['default', 'fast']);
    for (const [key, value] of Object.entries(overrides)) {
      if (key === 'name' || !(key in DEFAULT_PROFILE)) {
        issues.add(
          `profile.${key}`,
          value,
          `one of ${Object.keys(DEFAULT_PROFILE)
            .filter((k) => k !== 'name')
            .join(', ')}`,
        );
        continue;
      }
      const min = key === 'unroutedLookupMs' ? MIN_UNROUTED_LOOKUP_MS : 0;
      issues.intRange(`profile.${key}`, value, min, MAX_INTERVAL_MS);
    }
  }
  if (issues.issues.length > 0) throw new ConfigurationError(issues.issues);
}

/** The profile an option names; throws ConfigurationError for an unknown name, key, or an out-of-range interval. */
export function resolveProfile(option: ProfileOption | undefined): Profile {
  if (option === undefined || option === 'default') return DEFAULT_PROFILE;
  if (option === 'fast') return FAST_PROFILE;
  checkOverrides(option);
  if (typeof option === 'string') return DEFAULT_PROFILE;
  const { base, ...overrides } = option;
  const stall =
    overrides.stallThresholdMs ??
    (overrides.heartbeatIntervalMs !== undefined ? 2 * overrides.heartbeatIntervalMs : undefined);
  return Object.freeze({
    ...(base === 'fast' ? FAST_PROFILE : DEFAULT_PROFILE),
    name: 'custom',
    ...overrides,
    ...(stall !== undefined ? { stallThresholdMs: stall } : {}),
  });
}
