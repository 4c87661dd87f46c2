import { Cluster, Redis } from 'ioredis';
import type { ResolvedRedisOffsetStoreOptions } from './redis-offset-store.options';
import { PERSIST_OFFSETS_COMMAND, PERSIST_OFFSETS_LUA } from './persist-offsets.script';

/** An ioredis client (one server or a cluster) with the persist-offsets script defined on it. */
export type OffsetClient = (Redis | Cluster) & {
  [PERSIST_OFFSETS_COMMAND](numKeys: number, ...keysAndArgs: string[]): Promise<unknown>;
};

/** Reconnect back-off: 100 ms doubling to 2 s, so the first flush after an outage comes soon after Redis is back. */
export function reconnectDelay(attempt: number): number {
  return Math.min(100 * 2 ** Math.min(Math.max(attempt - 1, 0), 5), 2_000);
}

/**
 * Builds the client without connecting (the store connects in load()). `enableOfflineQueue: false` and
 * `maxRetriesPerRequest: 0` make a command fail at once while Redis is unreachable instead of waiting in a queue:
 * the offsets stay in the in-memory table and the next flush after the reconnect writes their latest values.
 */
export function createOffsetClient(options: ResolvedRedisOffsetStoreOptions): OffsetClient {
  let client: Redis | Cluster;
  if (options.cluster) {
    const { redisOptions, ...clusterOptions } = options.cluster.options ?? {};
    client = new Cluster([...options.cluster.nodes], {
      clusterRetryStrategy: reconnectDelay,
      ...clusterOptions,
      lazyConnect: true,
      enableOfflineQueue: false,
      redisOptions: { commandTimeout: options.commandTimeoutMs, ...redisOptions, maxRetriesPerRequest: 0 },
    });
  } else {
    const redisOptions = {
      retryStrategy: reconnectDelay,
      commandTimeout: options.commandTimeoutMs,
      ...options.redis,
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
    };
    client = options.url === undefined ? new Redis(redisOptions) : new Redis(options.url, redisOptions);
  }
  return withPersistCommand(client);
}

/**
 * Defines the persist-offsets script on a client (the store's own, or the app's: defining it again with the same
 * script is harmless, so several groups may share one client).
 */
export function withPersistCommand(client: Redis | Cluster): OffsetClient {
  client.defineCommand(PERSIST_OFFSETS_COMMAND, { lua: PERSIST_OFFSETS_LUA });
  return client as OffsetClient;
}
