/** @mqkit/offset-store-redis: consumer offsets in Redis through ioredis. */
export { redisOffsetStore } from './redis-offset-store.provider';
export { RedisOffsetStore } from './redis-offset-store';
export {
  DEFAULT_KEY_PREFIX,
  resolveRedisOffsetStoreOptions,
  type RedisOffsetStoreOptions,
  type ResolvedRedisOffsetStoreOptions,
} from './redis-offset-store.options';
export { offsetFieldOf, offsetKeyOf } from './offset-keys';
export type { OffsetStoreFlushEvent } from './redis-offset-store.events';
export type { BackpressureListener } from './outage-backpressure';
