import { randomUUID } from 'node:crypto';
import { EventBus } from '@mqkit/core';
import { describeOffsetStoreContract } from '@mqkit/core/testing';
import {
  DEFAULT_KEY_PREFIX,
  RedisOffsetStore,
  offsetFieldOf,
  offsetKeyOf,
  resolveRedisOffsetStoreOptions,
} from '@mqkit/offset-store-redis';
import { redisCall, startRedisServer, type RedisServerHandle } from '@mqkit/offset-store-redis/testing';
import { afterAll, beforeAll, describe } from 'vitest';

// One real redis-server for the file (or REDIS_URL); every case gets its own random group on it.
let redis: RedisServerHandle;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

describe('redis offset store', () =>
  describeOffsetStoreContract('redis', {
    backend: () => {
      const group = `contract-${randomUUID().slice(0, 8)}`;
      const options = resolveRedisOffsetStoreOptions({ url: redis.url });
      return {
        group,
        createStore: () => new RedisOffsetStore({ group, events: new EventBus(), options }),
        corrupt: async (mq) => {
          await redisCall(
            redis.port,
            'HSET',
            offsetKeyOf(DEFAULT_KEY_PREFIX, group, mq.topic),
            offsetFieldOf(mq),
            'twelve',
          );
        },
      };
    },
  }));
