import { ConfigurationError, type ConfigurationIssue } from '@mqkit/core';
import type { ClusterNode, ClusterOptions, RedisOptions } from 'ioredis';

/** The key prefix when none is given: keys read `mqkit:offset:{<group>}:<topic>`. */
export const DEFAULT_KEY_PREFIX = 'mqkit:offset:';

/** Options of `redisOffsetStore()`. Give `url` (and/or `redis`) for one server, or `cluster` for a Redis Cluster. */
export interface RedisOffsetStoreOptions {
  /**
   * `redis://[[user]:password@]host[:port][/db]`, or `rediss://...` for TLS: user, password and database number
   * come from the URL (default `redis://127.0.0.1:6379`).
   */
  readonly url?: string;
  /**
   * ioredis options, passed through (`username`, `password`, `db`, `tls`, `retryStrategy`, `connectTimeout`,
   * `connectionName`, ...); they override what `url` says. The store sets `lazyConnect`, `enableOfflineQueue: false`
   * and `maxRetriesPerRequest: 0` itself, so that commits stay in memory while Redis is down instead of queueing.
   */
  readonly redis?: RedisOptions;
  /** Redis Cluster: seed nodes and ioredis Cluster options (`redisOptions` carries auth and TLS). Excludes `url`. */
  readonly cluster?: { readonly nodes: readonly ClusterNode[]; readonly options?: ClusterOptions };
  /** Prefix of every key (default `mqkit:offset:`). Must not contain `{` or `}`: the group is the key's hash tag. */
  readonly keyPrefix?: string;
  /**
   * Pause pulling once this many consumed messages have progress held only in memory because writes to Redis
   * fail; resume after the first successful flush. Checked at every flush. Default: never pause (RocketMQ's
   * behaviour: consumption goes on, a crash during the outage re-delivers what was consumed since the last flush).
   */
  readonly maxUnpersistedMessages?: number;
  /** A Redis command that gets no answer within this fails (default 5000 ms). */
  readonly commandTimeoutMs?: number;
}

/** The options after defaults and checks. */
export interface ResolvedRedisOffsetStoreOptions {
  readonly url: string | undefined;
  readonly redis: RedisOptions;
  readonly cluster: RedisOffsetStoreOptions['cluster'];
  readonly keyPrefix: string;
  readonly maxUnpersistedMessages: number;
  readonly commandTimeoutMs: number;
}

const SOURCE = 'redisOffsetStore';

/** Applies defaults; every invalid option is reported at once, as one ConfigurationError. */
export function resolveRedisOffsetStoreOptions(options: RedisOffsetStoreOptions = {}): ResolvedRedisOffsetStoreOptions {
  const issues: ConfigurationIssue[] = [];
  const issue = (option: string, value: unknown, allowed: string) =>
    issues.push({ source: SOURCE, option, value, allowed });
  if (options === null || typeof options !== 'object') {
    throw new ConfigurationError({
      source: SOURCE,
      option: 'options',
      value: options,
      allowed: 'an object such as { url: "redis://127.0.0.1:6379" }',
    });
  }
  const { url, cluster } = options;
  if (url !== undefined && !isRedisUrl(url))
    issue('url', url, 'a redis:// or rediss:// URL, e.g. redis://user:password@127.0.0.1:6379/0');
  if (cluster !== undefined) {
    if (url !== undefined) issue('cluster', cluster, 'either url or cluster, not both');
    if (!cluster || !Array.isArray(cluster.nodes) || cluster.nodes.length === 0)
      issue('cluster.nodes', cluster?.nodes, 'a non-empty list of seed nodes, e.g. [{ host: "10.0.0.1", port: 7000 }]');
  }
  const keyPrefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
  if (typeof keyPrefix !== 'string' || /[{}]/.test(keyPrefix) || keyPrefix.length > 200) {
    issue(
      'keyPrefix',
      keyPrefix,
      'a string of at most 200 characters without { or } (the group in braces is the Redis Cluster hash tag)',
    );
  }
  const maxUnpersistedMessages = options.maxUnpersistedMessages ?? Number.POSITIVE_INFINITY;
  if (
    !(
      maxUnpersistedMessages === Number.POSITIVE_INFINITY ||
      (Number.isSafeInteger(maxUnpersistedMessages) && maxUnpersistedMessages > 0)
    )
  ) {
    issue('maxUnpersistedMessages', options.maxUnpersistedMessages, 'an integer > 0 (omit it to never pause)');
  }
  const commandTimeoutMs = options.commandTimeoutMs ?? 5_000;
  if (!(Number.isInteger(commandTimeoutMs) && commandTimeoutMs > 0 && commandTimeoutMs <= 600_000))
    issue('commandTimeoutMs', commandTimeoutMs, 'an integer in [1, 600000] ms');
  if (options.redis !== undefined && (options.redis === null || typeof options.redis !== 'object'))
    issue('redis', options.redis, 'an ioredis options object');
  if (issues.length > 0) throw new ConfigurationError(issues);
  return { url, redis: options.redis ?? {}, cluster, keyPrefix, maxUnpersistedMessages, commandTimeoutMs };
}

function isRedisUrl(url: unknown): boolean {
  if (typeof url !== 'string') return false;
  try {
    const parsed = new URL(url);
    return (parsed.protocol === 'redis:' || parsed.protocol === 'rediss:') && parsed.hostname !== '';
  } catch {
    return false;
  }
}
