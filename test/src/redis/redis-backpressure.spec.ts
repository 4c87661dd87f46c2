import { randomUUID } from 'node:crypto';
import { waitFor } from '@mqkit/core/testing';
import { redisOffsetStore } from '@mqkit/offset-store-redis';
import { startRedisServer } from '@mqkit/offset-store-redis/testing';
import { EmbeddedBroker } from '@mqkit/transport-memory';
import { describe, expect, it } from 'vitest';
import { Seen, produce, recordingConsumer, startGroup } from './redis-group.fixture';

describe('offset-store backpressure', () => {
  it('past maxUnpersistedMessages during a Redis outage pulling pauses, and resumes after the reconnect with nothing lost', { timeout: 60_000 }, async () => {
    const redis = await startRedisServer({ useRedisUrl: false });
    const broker = new EmbeddedBroker();
    const [group, topic] = [`g-${randomUUID().slice(0, 8)}`, `T-${randomUUID().slice(0, 8)}`];
    const seen = new Seen();
    let apps: Awaited<ReturnType<typeof startGroup>> = [];
    try {
      broker.createTopic({ topic, queues: 4 });
      apps = await startGroup({ broker, members: 1, consumer: recordingConsumer(group, topic, seen), offsetStore: () => redisOffsetStore({ url: redis.url, maxUnpersistedMessages: 500 }) });
      const paused: string[] = [];
      apps[0]!.on('consumer.paused', (e) => paused.push(e.reason));
      apps[0]!.on('consumer.resumed', (e) => paused.push('resumed-' + e.reason));
      await produce(broker, topic, 0, 1_000);
      await waitFor(() => seen.size === 1_000);
      await redis.halt();
      await produce(broker, topic, 1_000, 5_000);
      // The store asks the runtime to pause: consumption stops well short of the 4,000 new messages.
      await waitFor(() => paused.includes('offset-store'), { timeoutMs: 15_000 });
      await waitFor(() => apps[0]!.consumer(group).status().paused, { message: () => JSON.stringify(paused) + ' seen ' + seen.size });
      const atPause = seen.size;
      await waitFor(() => apps[0]!.consumer(group).status().queues.every((q) => q.inflight === 0));
      expect(seen.size).toBeLessThan(5_000);
      expect(seen.size - 1_000).toBeLessThanOrEqual(500 + 4 * 1_000); // the limit plus what was already cached
      await redis.restart();
      await waitFor(() => seen.size === 5_000, { timeoutMs: 20_000, message: () => `${seen.size} consumed after the reconnect` });
      expect(atPause).toBeLessThan(5_000);
      expect(seen.missing(0, 5_000)).toEqual([]);
      expect(apps[0]!.consumer(group).status().paused).toBe(false);
    } finally {
      await Promise.all(apps.map((app) => app.stop()));
      broker.close();
      await redis.stop();
    }
  });
});
