import { randomUUID } from 'node:crypto';
import { EventBus, type MessageQueue } from '@mqkit/core';
import { waitFor } from '@mqkit/core/testing';
import {
  RedisOffsetStore,
  redisOffsetStore,
  resolveRedisOffsetStoreOptions,
  type OffsetStoreFlushEvent,
} from '@mqkit/offset-store-redis';
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

describe('a stale member', () => {
  it("cannot lower the group's offsets with a late commit", { timeout: 30_000 }, async () => {
    const broker = new EmbeddedBroker();
    const [group, topic] = [`g-${randomUUID().slice(0, 8)}`, `T-${randomUUID().slice(0, 8)}`];
    const key = `mqkit:offset:{${group}}:${topic}`;
    const options = resolveRedisOffsetStoreOptions({ url: redis.url });
    const events = new EventBus();
    const flushes: OffsetStoreFlushEvent[] = [];
    events.on('offset-store.flush', (e) => flushes.push(e));
    // A member that owned every queue, consumed 100 messages of each, then stalled (a long GC pause, a network
    // partition) while the group moved on without it.
    const stale = new RedisOffsetStore({ group, events, options });
    try {
      broker.createTopic({ topic, queues: 4 });
      await produce(broker, topic, 0, 20_000);
      const queues: MessageQueue[] = broker.subscribeQueues(topic);
      await stale.load();
      for (const mq of queues) expect(await stale.read(mq)).toBe(-1);

      const seen = new Seen();
      const consumer = recordingConsumer(group, topic, seen);
      const offsetStore = () => redisOffsetStore({ url: redis.url });
      const apps = await startGroup({ broker, consumer, offsetStore });
      await waitFor(() => seen.size === 20_000, {
        timeoutMs: 20_000,
        message: () => `20,000 messages consumed (seen ${seen.size})`,
      });
      await Promise.all(apps.map((app) => app.stop()));
      const committed = hashOf(await redisCall(redis.port, 'HGETALL', key));
      expect(committed).toEqual(maxOffsets(broker, topic));

      // The stale member wakes up and writes its old offsets.
      await stale.write(queues.map((mq) => ({ mq, offset: 100, lowering: false })));
      expect(flushes).toEqual([expect.objectContaining({ entries: 4, applied: 0, skipped: 4 })]);
      expect(hashOf(await redisCall(redis.port, 'HGETALL', key))).toEqual(committed);

      // And a restarted group carries on from the group's offsets: only new messages arrive.
      await produce(broker, topic, 20_000, 20_010);
      const again = await startGroup({ broker, consumer, offsetStore, members: 1 });
      await waitFor(() => seen.size === 20_010, { timeoutMs: 10_000, message: 'the 10 new messages' });
      await Promise.all(again.map((app) => app.stop()));
      expect(seen.duplicates).toBe(0);
    } finally {
      await stale.close();
      broker.close();
    }
  });
});
