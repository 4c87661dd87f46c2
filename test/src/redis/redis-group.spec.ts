import { randomUUID } from 'node:crypto';
import { waitFor } from '@mqkit/core/testing';
import { redisOffsetStore } from '@mqkit/offset-store-redis';
import { redisCall, startRedisServer, type RedisServerHandle } from '@mqkit/offset-store-redis/testing';
import { EmbeddedBroker } from '@mqkit/transport-memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Seen, hashOf, maxOffsets, produce, recordingConsumer, startGroup } from './redis-group.fixture';

let redis: RedisServerHandle;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

describe('a consumer group of 3 instances with the Redis offset store', () => {
  it('consumes 100,000 messages with none lost, and after a restart resumes from the offsets in Redis', {
    timeout: 60_000,
  }, async () => {
    const broker = new EmbeddedBroker();
    const [group, topic] = [`g-${randomUUID().slice(0, 8)}`, `T-${randomUUID().slice(0, 8)}`];
    const N = 100_000;
    try {
      broker.createTopic({ topic, queues: 8 });
      await produce(broker, topic, 0, N);
      const seen = new Seen();
      const consumer = recordingConsumer(group, topic, seen);
      const offsetStore = () => redisOffsetStore({ url: redis.url });
      const first = await startGroup({ broker, consumer, offsetStore });
      await waitFor(() => seen.size === N, {
        timeoutMs: 45_000,
        intervalMs: 50,
        message: () => `${N} messages consumed (seen ${seen.size})`,
      });
      const reports = await Promise.all(first.map((app) => app.stop()));
      expect(reports.every((r) => r.drained)).toBe(true);
      expect(seen.missing(0, N)).toEqual([]);
      // A clean stop commits everything: Redis holds the broker's max offset of every queue.
      expect(hashOf(await redisCall(redis.port, 'HGETALL', `mqkit:offset:{${group}}:${topic}`))).toEqual(
        maxOffsets(broker, topic),
      );

      await produce(broker, topic, N, N + 5_000);
      const consumedBefore = new Map(seen.counts);
      const second = await startGroup({ broker, consumer, offsetStore });
      await waitFor(() => seen.size === N + 5_000, {
        timeoutMs: 20_000,
        intervalMs: 50,
        message: () => `the 5,000 new messages (seen ${seen.size - N})`,
      });
      await Promise.all(second.map((app) => app.stop()));
      // Resumed from Redis: nothing consumed before the restart came again (CONSUME_FROM_FIRST_OFFSET would replay it all).
      const replayed = [...consumedBefore].filter(([id, n]) => seen.counts.get(id) !== n).length;
      expect(replayed).toBe(0);
      expect(seen.duplicates).toBe(0);
      expect(hashOf(await redisCall(redis.port, 'HGETALL', `mqkit:offset:{${group}}:${topic}`))).toEqual(
        maxOffsets(broker, topic),
      );
    } finally {
      broker.close();
    }
  });
});
