import type { OffsetStoreProvider } from '@mqkit/core';
import { RedisOffsetStore } from './redis-offset-store';
import { resolveRedisOffsetStoreOptions, type RedisOffsetStoreOptions } from './redis-offset-store.options';

/**
 * Consumer offsets in Redis (CLUSTERING groups): one hash per group and topic, `<keyPrefix>{<group>}:<topic>`,
 * field `<brokerName>:<queueId>`. Options are checked here, so a bad URL or prefix fails where it is written.
 *
 * @example
 * ```ts
 * const app = await createConsumerApp({
 *   transport: rocketmqTransport({ nameServer: '127.0.0.1:9876' }),
 *   offsetStore: redisOffsetStore({ url: 'redis://:secret@10.0.0.5:6379/2' }),
 *   consumers: [OrderConsumer],
 * });
 * ```
 */
export function redisOffsetStore(options: RedisOffsetStoreOptions = {}): OffsetStoreProvider {
  const resolved = resolveRedisOffsetStoreOptions(options);
  return {
    name: 'redis',
    models: ['CLUSTERING'],
    create: ({ group, events }) => new RedisOffsetStore({ group, events, options: resolved }),
  };
}
