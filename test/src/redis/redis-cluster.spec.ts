import { randomUUID } from 'node:crypto';
import { retryTopicOf } from '@mqkit/core';
import { waitFor } from '@mqkit/core/testing';
import { redisOffsetStore, type OffsetStoreFlushEvent } from '@mqkit/offset-store-redis';
import { commandCalls, redisCall, startRedisCluster, type RedisClusterHandle } from '@mqkit/offset-store-redis/testing';
import { EmbeddedBroker } from '@mqkit/transport-memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Seen, hashOf, maxOffsets, produce, recordingConsumer, startGroup } from './redis-group.fixture';

let cluster: RedisClusterHandle;
beforeAll(async () => {
  cluster = await startRedisCluster();
}, 30_000);
afterAll(async () => {
  await cluster?.stop();
});

/** Script requests (EVAL/EVALSHA, redirected ones included) per node. */
async function scriptCalls(): Promise<number[]> {
  return Promise.all(
    cluster.nodes.map(async (n) => {
      const calls = await commandCalls(n.port);
      return (calls.get('eval') ?? 0) + (calls.get('evalsha') ?? 0);
    }),
  );
}

describe('the Redis offset store on a 3-node Redis Cluster', () => {
  it('serves a group of 3 with one script call per flush, all on the node that owns the group slot', {
    timeout: 45_000,
  }, async () => {
    const broker = new EmbeddedBroker();
    const [group, topic] = [`g-${randomUUID().slice(0, 8)}`, `T-${randomUUID().slice(0, 8)}`];
    const key = `mqkit:offset:{${group}}:${topic}`;
    try {
      // The group is the hash tag: its topics, retry topic included, share one slot.
      const slots = await Promise.all(
        [key, `mqkit:offset:{${group}}:${retryTopicOf(group)}`].map((k) =>
          redisCall(cluster.nodes[0]!.port, 'CLUSTER', 'KEYSLOT', k),
        ),
      );
      expect(slots[0]).toBe(slots[1]);

      broker.createTopic({ topic, queues: 8 });
      await produce(broker, topic, 0, 10_000);
      const before = await scriptCalls();
      const seen = new Seen();
      const flushes: OffsetStoreFlushEvent[] = [];
      const nodes = cluster.nodes.map((n) => ({ host: n.host, port: n.port }));
      const apps = await startGroup({
        broker,
        consumer: recordingConsumer(group, topic, seen),
        offsetStore: () => redisOffsetStore({ cluster: { nodes } }),
        beforeStart: (app) => app.on('offset-store.flush', (e) => flushes.push(e)),
      });
      await waitFor(() => seen.size === 10_000, {
        timeoutMs: 20_000,
        message: () => `10,000 messages consumed (seen ${seen.size})`,
      });
      // Consumed offsets are dirty until the next periodic flush; then a second half makes some dirty again, which
      // a periodic flush or the flush at stop must write: both paths are counted.
      await waitFor(() => flushes.length > 0, { message: 'a periodic flush' });
      const periodic = flushes.length;
      await produce(broker, topic, 10_000, 20_000);
      await waitFor(() => seen.size === 20_000, {
        timeoutMs: 20_000,
        message: () => `20,000 messages consumed (seen ${seen.size})`,
      });
      await Promise.all(apps.map((app) => app.stop()));
      expect(seen.missing(0, 20_000)).toEqual([]);

      const stored = await Promise.all(
        cluster.nodes.map((n) => redisCall(n.port, 'HGETALL', key).then(hashOf, () => undefined)),
      );
      const owners = stored.filter((h) => h !== undefined);
      expect(owners).toHaveLength(1);
      expect(owners[0]).toEqual(maxOffsets(broker, topic));

      const after = await scriptCalls();
      const perNode = after.map((n, i) => n - before[i]!);
      expect(flushes.length).toBeGreaterThan(periodic);
      expect(perNode.reduce((a, b) => a + b, 0)).toBe(flushes.length);
      expect(perNode.filter((n) => n > 0)).toHaveLength(1);
    } finally {
      broker.close();
    }
  });
});
