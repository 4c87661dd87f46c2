import { randomUUID } from 'node:crypto';
import { sleep } from '@mqkit/core/internal';
import { waitFor } from '@mqkit/core/testing';
import { redisOffsetStore } from '@mqkit/offset-store-redis';
import { redisCall, startRedisServer } from '@mqkit/offset-store-redis/testing';
import { EmbeddedBroker } from '@mqkit/transport-memory';
import { describe, expect, it } from 'vitest';
import {
  Seen,
  hashOf,
  maxOffsets,
  openProducer,
  recordingConsumer,
  startGroup,
  watchForRegressions,
} from './redis-group.fixture';

describe('Redis outage under a running group of 3', () => {
  it('Redis stopped for 10 s mid-run and restarted: consumption goes on, nothing is lost, offsets never regress', {
    timeout: 60_000,
  }, async () => {
    const redis = await startRedisServer({ useRedisUrl: false });
    const broker = new EmbeddedBroker();
    const [group, topic] = [`g-${randomUUID().slice(0, 8)}`, `T-${randomUUID().slice(0, 8)}`];
    const key = `mqkit:offset:{${group}}:${topic}`;
    const watcher = watchForRegressions(async () => hashOf(await redisCall(redis.port, 'HGETALL', key)));
    let apps: Awaited<ReturnType<typeof startGroup>> = [];
    try {
      broker.createTopic({ topic, queues: 8 });
      const seen = new Seen();
      apps = await startGroup({
        broker,
        consumer: recordingConsumer(group, topic, seen),
        offsetStore: () => redisOffsetStore({ url: redis.url }),
      });
      const storeErrors: Error[] = [];
      for (const app of apps) app.on('offset-store.error', (e) => storeErrors.push(e.error));

      // A steady flow: 100 messages every 50 ms for 15 s, so messages keep arriving during the whole outage.
      let produced = 0;
      const producer = await openProducer(broker, topic);
      const production = (async () => {
        try {
          for (let tick = 0; tick < 300; tick++) {
            await producer.send(produced, produced + 100);
            produced += 100;
            await sleep(50);
          }
        } finally {
          await producer.stop();
        }
      })();

      await waitFor(() => seen.size >= 2_000 && watcher.samples > 3, {
        timeoutMs: 15_000,
        message: 'the group to consume while Redis is up',
      });
      await redis.halt();
      const [atHalt, producedAtHalt] = [seen.size, produced];
      // The outage itself is the scenario: Redis stays down for 10 s whatever the consumers do.
      await sleep(10_000);
      const duringOutage = seen.size - atHalt;
      const producedDuringOutage = produced - producedAtHalt;
      const failuresDuringOutage = storeErrors.length;
      await redis.restart();

      await production;
      await waitFor(() => seen.size === produced, {
        timeoutMs: 20_000,
        message: () => `all ${produced} messages consumed (seen ${seen.size})`,
      });
      // The periodic flushes after the reconnect write the latest offsets, before anything stops.
      // Field order in the hash follows which member wrote first, so the comparison is by field.
      const expected = maxOffsets(broker, topic);
      let stored: Record<string, string> = {};
      await waitFor(
        async () => {
          stored = hashOf(await redisCall(redis.port, 'HGETALL', key));
          return sameFields(stored, expected);
        },
        {
          timeoutMs: 10_000,
          message: () =>
            `Redis to hold every queue's max offset after the reconnect (expected ${JSON.stringify(expected)}, stored ${JSON.stringify(stored)})`,
        },
      );

      // Consumption went on: the group kept up with most of what arrived while Redis was down.
      expect(producedDuringOutage).toBeGreaterThan(1_000);
      expect(duringOutage).toBeGreaterThan(producedDuringOutage / 2);
      expect(failuresDuringOutage).toBeGreaterThan(3);
      expect(seen.missing(0, produced)).toEqual([]);
      await watcher.stop();
      expect(watcher.regressions).toEqual([]);
      expect(watcher.samples).toBeGreaterThan(20);
    } finally {
      await watcher.stop();
      await Promise.all(apps.map((app) => app.stop()));
      broker.close();
      await redis.stop();
    }
  });
});

function sameFields(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(b);
  return Object.keys(a).length === keys.length && keys.every((k) => a[k] === b[k]);
}
