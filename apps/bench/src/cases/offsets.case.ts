import { randomUUID } from 'node:crypto';
import { EventBus, type MessageQueue } from '@mqkit/core';
import { RedisOffsetStore, offsetKeyOf, resolveRedisOffsetStoreOptions, DEFAULT_KEY_PREFIX } from '@mqkit/offset-store-redis';
import { commandCalls, redisCall, startRedisServer, type RedisServerHandle } from '@mqkit/offset-store-redis/testing';
import type { BenchCase } from './bench-case';
import { flag, log, median } from './bench-util';

const TOPIC = 'BenchOffsets';
const inc = { increaseOnly: true } as const;

interface RoundResult {
  /** Commits (update() calls) whose offsets a completed flush wrote, per second. */
  readonly commitsPerSec: number;
  /** Client requests Redis received per flush (INFO commandstats, minus what the script runs inside Redis). */
  readonly roundTripsPerFlush: number;
  readonly flushes: number;
  readonly fieldWritesPerSec: number;
  /** Median time of one flush (script call and reply), ms. */
  readonly flushMs: number;
}

/**
 * One round: `queues` queues, each committed once per event-loop turn (1,000 updates, then setImmediate), and a
 * persist of every queue each `flushMs` (skipped while the previous one runs, like the runtime's exhaustMap). Ends
 * when `flushes` flushes have completed. The rate counts only commits a completed flush carried to Redis, and is
 * checked against the sum of the offsets Redis holds afterwards.
 */
async function round(redis: RedisServerHandle, queues: number, flushMs: number, flushes: number): Promise<RoundResult> {
  const group = `bench-${randomUUID().slice(0, 8)}`;
  const events = new EventBus();
  let scriptInternalCalls = 0;
  let fieldWrites = 0;
  const flushMsAll: number[] = [];
  events.on('offset-store.flush', (e) => {
    scriptInternalCalls += e.entries + e.applied; // the script's one HGET per entry and one HSET per write
    fieldWrites += e.applied;
    flushMsAll.push(e.durationMs);
  });
  const store = new RedisOffsetStore({ group, events, options: resolveRedisOffsetStoreOptions({ url: redis.url }) });
  await store.load();
  const mqs: MessageQueue[] = Array.from({ length: queues }, (_, queueId) => ({ topic: TOPIC, brokerName: 'broker-a', queueId }));
  const offsets = new Array<number>(queues).fill(0);
  let commits = 0;
  let running = true;
  const before = await commandCalls(redis.port);
  const t0 = performance.now();
  const committer = (async () => {
    while (running) {
      for (let i = 0; i < queues; i++) store.update(mqs[i]!, ++offsets[i]!, inc);
      commits += queues;
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  let done = 0;
  let inFlight = false;
  let carried = { commits: 0, at: t0 };
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (inFlight) return;
      inFlight = true;
      const snapshot = { commits, at: performance.now() };
      store.persist(mqs).then(
        () => {
          inFlight = false;
          carried = snapshot;
          if (++done >= flushes) {
            clearInterval(timer);
            resolve();
          }
        },
        (error: unknown) => {
          clearInterval(timer);
          reject(error);
        },
      );
    }, flushMs);
  });
  running = false;
  await committer;
  const after = await commandCalls(redis.port);
  let requests = 0;
  for (const [name, n] of after) if (name !== 'info' && name !== 'hello') requests += n - (before.get(name) ?? 0);
  const stored = (await redisCall(redis.port, 'HVALS', offsetKeyOf(DEFAULT_KEY_PREFIX, group, TOPIC))) as string[];
  const inRedis = stored.reduce((sum, v) => sum + Number(v), 0);
  if (inRedis !== carried.commits) throw new Error(`Redis holds ${inRedis} commits, the flushes carried ${carried.commits}`);
  await store.close();
  await redisCall(redis.port, 'DEL', offsetKeyOf(DEFAULT_KEY_PREFIX, group, TOPIC));
  const seconds = (carried.at - t0) / 1000;
  return { commitsPerSec: carried.commits / seconds, roundTripsPerFlush: (requests - scriptInternalCalls) / done, flushes: done, fieldWritesPerSec: fieldWrites / seconds, flushMs: median(flushMsAll) };
}

export const offsetsCase: BenchCase = {
  name: 'offsets',
  embedded: false,
  description: 'Redis offset store: 1,000 queues committed continuously, flushed every 100 ms and every 5 s (needs redis-server on PATH, or REDIS_URL)',
  async run(args) {
    const queues = flag(args, 'queues', 1_000);
    const rounds = flag(args, 'rounds', 3);
    const fastFlushes = flag(args, 'flushes', 50);
    const slowFlushes = flag(args, 'flushes5s', 2);
    const redis = await startRedisServer();
    try {
      log(`redis ${redis.url}${redis.external ? ' (REDIS_URL)' : ` (pid ${redis.pid})`}; ${queues} queues; ${rounds} rounds: ${fastFlushes} flushes at 100 ms, ${slowFlushes} at 5 s`);
      const fast: RoundResult[] = [];
      const slow: RoundResult[] = [];
      for (let r = 0; r < rounds; r++) {
        fast.push(await round(redis, queues, 100, fastFlushes));
        slow.push(await round(redis, queues, 5_000, slowFlushes));
        const [f, s] = [fast.at(-1)!, slow.at(-1)!];
        log(
          `round ${r + 1}: 100 ms flush ${Math.round(f.commitsPerSec)} commits/s (${Math.round(f.fieldWritesPerSec)} field writes/s, ` +
            `${f.roundTripsPerFlush.toFixed(3)} round trips/flush over ${f.flushes}, median flush ${f.flushMs} ms); 5 s flush ${Math.round(s.commitsPerSec)} commits/s ` +
            `(${s.roundTripsPerFlush.toFixed(3)} round trips/flush over ${s.flushes})`,
        );
      }
      return {
        commitsPerSec: Math.round(median(fast.map((x) => x.commitsPerSec))),
        commitsPerSec5s: Math.round(median(slow.map((x) => x.commitsPerSec))),
        roundTripsPerFlush: median([...fast, ...slow].map((x) => x.roundTripsPerFlush)),
      };
    } finally {
      await redis.stop();
    }
  },
};
