import { randomUUID } from 'node:crypto';
import { Consumer, type Message } from '@mqkit/core';
import { waitFor } from '@mqkit/core/testing';
import { redisOffsetStore } from '@mqkit/offset-store-redis';
import { redisCall, startRedisServer } from '@mqkit/offset-store-redis/testing';
import { EmbeddedBroker } from '@mqkit/transport-memory';
import { describe, expect, it } from 'vitest';
import { Seen, hashOf, produce, startGroup } from './redis-group.fixture';

const LIMIT = 500;
const QUEUES = 4;
const QUEUE_THRESHOLD = 100;
/** Outage messages the handler completes before it waits for the pause: past LIMIT, so a failed flush must pause. */
const GATE = LIMIT + 200;
const OUTAGE = 4_000;

describe('offset-store backpressure', () => {
  it('past maxUnpersistedMessages during a Redis outage pulling pauses, and resumes after the reconnect with nothing lost', {
    timeout: 60_000,
  }, async () => {
    const redis = await startRedisServer({ useRedisUrl: false });
    const broker = new EmbeddedBroker();
    const [group, topic] = [`g-${randomUUID().slice(0, 8)}`, `T-${randomUUID().slice(0, 8)}`];
    const seen = new Seen();
    let apps: Awaited<ReturnType<typeof startGroup>> = [];
    // The handler runs one call at a time, so every completed call moves a committable offset: once GATE outage
    // messages are done, more than LIMIT of progress is held only in memory and the next failed flush must pause.
    // It waits for that pause there, so what is asserted below does not depend on how fast this machine consumes.
    let paused!: () => void;
    const pause = new Promise<void>((resolve) => (paused = resolve));
    let outageDone = 0;
    class GatedConsumer {
      async handle(message: Message<{ i: number }>): Promise<void> {
        seen.see(message.payload.i);
        if (message.payload.i >= 1_000 && ++outageDone === GATE) await pause;
      }
    }
    Consumer({
      group,
      topic,
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      consumeThreadMax: 1,
      pullThresholdForQueue: QUEUE_THRESHOLD,
    })(GatedConsumer);
    try {
      broker.createTopic({ topic, queues: QUEUES });
      const signals: string[] = [];
      apps = await startGroup({
        broker,
        members: 1,
        consumer: GatedConsumer,
        offsetStore: () => redisOffsetStore({ url: redis.url, maxUnpersistedMessages: LIMIT }),
        beforeStart: (app) => {
          app.on('consumer.paused', (e) => {
            signals.push(e.reason);
            if (e.reason === 'offset-store') paused();
          });
          app.on('consumer.resumed', (e) => signals.push(`resumed-${e.reason}`));
        },
      });
      const status = () => apps[0]!.consumer(group).status();
      await produce(broker, topic, 0, 1_000);
      await waitFor(() => seen.size === 1_000);
      // The progress before the outage is in Redis: what the store counts during the outage is measured from what
      // Redis holds (a queue Redis never held counts from its first failed write).
      const stored = async () =>
        Object.values(hashOf(await redisCall(redis.port, 'HGETALL', `mqkit:offset:{${group}}:${topic}`))).reduce(
          (sum, offset) => sum + Number(offset),
          0,
        );
      await waitFor(async () => (await stored()) === 1_000, { message: 'the first 1,000 offsets in Redis' });
      await redis.halt();
      await produce(broker, topic, 1_000, 1_000 + OUTAGE);
      await waitFor(() => signals.includes('offset-store'), {
        timeoutMs: 15_000,
        message: () => `a pause (outage messages done: ${outageDone})`,
      });
      expect(status().paused).toBe(true);
      // With pulling paused, what was cached drains and nothing more arrives.
      await waitFor(() => status().queues.every((q) => q.inflight === 0 && q.cachedCount === 0), {
        message: () => JSON.stringify(status().queues),
      });
      // At most: the gated calls, plus what each queue had cached (its threshold, overshot by one message).
      expect(seen.size - 1_000).toBeLessThanOrEqual(GATE + QUEUES * (QUEUE_THRESHOLD + 1));
      expect(status().paused).toBe(true);
      await redis.restart();
      await waitFor(() => seen.size === 1_000 + OUTAGE, {
        timeoutMs: 20_000,
        message: () => `${seen.size} consumed after the reconnect`,
      });
      expect(seen.missing(0, 1_000 + OUTAGE)).toEqual([]);
      await waitFor(() => signals.includes('resumed-offset-store'), { message: () => JSON.stringify(signals) });
      expect(status().paused).toBe(false);
    } finally {
      await Promise.all(apps.map((app) => app.stop()));
      broker.close();
      await redis.stop();
    }
  });
});
