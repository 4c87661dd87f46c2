import { ConfigurationError, type ConfigurationIssue } from '@mqkit/core';
import type { Cluster, ClusterNode, ClusterOptions, Redis, RedisOptions } from 'ioredis';
import { isIoredisClient } from './shared-client';

/** The key prefix when none is given: keys read `mqkit:offset:{<group>}:<topic>`. */
export const DEFAULT_KEY_PREFIX = 'mqkit:offset:';

/**
 * Options of `redisOffsetStore()`. Give `url` (and/or `redis`) for one server, `cluster` for a Redis Cluster, or
 * `client` to use an ioredis client the app already has.
 */
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
  /**
   * An ioredis client of the app (`new Redis(...)` or `new Cluster(...)`), used instead of a connection of the
   * store's own; it excludes `url`, `redis`, `cluster` and `commandTimeoutMs`, since the client carries its own
   * settings (its `commandTimeout`, `keyPrefix`, retry strategy and TLS apply).
   *
   * The app owns the client: the store never closes it (its `close()`, and so the app's `stop()`, leave the client
   * connected) and removes the listeners it added. The store connects a client created with `lazyConnect` that has
   * not connected yet, waits for one that is connecting, and fails `load()` (the app's start) if it ends, errors or
   * was closed. It defines one script command (`mqkitPersistOffsets`) on the client. Commands are sent only while
   * the client is ready, so a flush during an outage fails at once (and is retried by the next one) instead of
   * waiting in the client's offline queue.
   *
   * @example
   * ```ts
   * const redis = new Redis(process.env.REDIS_URL!);
   * const app = await createConsumerApp({ ..., offsetStore: redisOffsetStore({ client: redis }) });
   * // ... app.stop() leaves `redis` open; the app quits it when it no longer needs it.
   * ```
   */
  readonly client?: Redis | Cluster;
  /** Prefix of every key (default `mqkit:offset:`). Must not contain `{` or `}`: the group is the key's hash tag. */
  readonly keyPrefix?: string;
  /**
   * Pause pulling once this many consumed messages have progress held only in memory because writes to Redis
   * fail; resume after the first successful flush. Checked at every flush. Default: never pause (RocketMQ's
   * behaviour: consumption goes on, a crash during the outage re-delivers what was consumed since the last flush).
   */
  readonly maxUnpersistedMessages?: number;
  /**
   * A Redis command that gets no answer within this fails (default 5000 ms). Not with `client`: set ioredis'
   * `commandTimeout` on that client instead.
   */
  readonly commandTimeoutMs?: number;
}

/** The options after defaults and checks. */
export interface ResolvedRedisOffsetStoreOptions {
  readonly url: string | undefined;
  readonly redis: RedisOptions;
  readonly cluster: RedisOffsetStoreOptions['cluster'];
  /** The app's client when one was given (the store then opens no connection of its own). */
  readonly client?: Redis | Cluster;
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
  const { url, cluster, client } = options;
  if (client !== undefined) {
    if (!isIoredisClient(client)) issue('client', client, 'an ioredis client: new Redis(...) or new Cluster(...)');
    for (const option of ['url', 'redis', 'cluster'] as const) {
      if (options[option] !== undefined)
        issue(option, options[option], 'omitted with client: the client carries its own connection settings');
    }
    if (options.commandTimeoutMs !== undefined)
      issue('commandTimeoutMs', options.commandTimeoutMs, "omitted with client: set ioredis' commandTimeout on it");
  }
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
  return {
    url,
    redis: options.redis ?? {},
    cluster,
    ...(client === undefined ? {} : { client }),
    keyPrefix,
    maxUnpersistedMessages,
    commandTimeoutMs,
  };
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
