import { randomUUID } from 'node:crypto';
import { EventBus, type MessageQueue } from '@mqkit/core';
import {
  RedisOffsetStore,
  offsetKeyOf,
  resolveRedisOffsetStoreOptions,
  DEFAULT_KEY_PREFIX,
} from '@mqkit/offset-store-redis';
import { commandCalls, redisCall, startRedisServer, type RedisServerHandle } from '@mqkit/offset-store-redis/testing';
import type { BenchCase } from './bench-case';
import { flag, log } from './bench-util';
import { describeSpread, median, percentile, round, spreadOf, type Spread } from '../report/run-stats';

const TOPIC = 'BenchOffsets';

interface RoundResult {
  /** Offset fields the flushes' script wrote in Redis (HSETs), per second of the round: what reaches Redis. */
  readonly fieldWritesPerSec: number;
  /** Every flush's latency: write() called to resolved (build the script call, one round trip, apply the reply), ms. */
  readonly flushLatenciesMs: readonly number[];
  /** Client requests Redis received per flush (INFO commandstats, minus what the script runs inside Redis). */
  readonly roundTripsPerFlush: number;
  readonly flushes: number;
  /**
   * Offset updates a completed flush covered, per second: in the bench's own table (as a group's ConsumeProgress
   * keeps it), most of them overwrite each other before a flush; at most one field per queue per flush reaches Redis.
   */
  readonly inMemoryUpdatesPerSec: number;
}

/**
 * One round: `queues` queues, each committed once per event-loop turn (1,000 updates, then setImmediate), and a
 * write of every queue's latest offset each `flushMs` (skipped while the previous one runs, like the runtime's
 * exhaustMap). Ends
 * when `flushes` flushes have completed. Redis figures: the fields the flushes wrote and each flush's latency; the
 * sum of the offsets Redis holds afterwards is checked against the updates the last completed flush carried.
 */
async function runRound(
  redis: RedisServerHandle,
  queues: number,
  flushMs: number,
  flushes: number,
): Promise<RoundResult> {
  const group = `bench-${randomUUID().slice(0, 8)}`;
  const events = new EventBus();
  let scriptInternalCalls = 0;
  let fieldWrites = 0;
  events.on('offset-store.flush', (e) => {
    scriptInternalCalls += e.entries + e.applied; // the script's one HGET per entry and one HSET per write
    fieldWrites += e.applied;
  });
  const store = new RedisOffsetStore({ group, events, options: resolveRedisOffsetStoreOptions({ url: redis.url }) });
  await store.load();
  const mqs: MessageQueue[] = Array.from({ length: queues }, (_, queueId) => ({
    topic: TOPIC,
    brokerName: 'broker-a',
    queueId,
  }));
  const offsets = new Array<number>(queues).fill(0);
  let updates = 0;
  let running = true;
  const before = await commandCalls(redis.port);
  const t0 = performance.now();
  const committer = (async () => {
    while (running) {
      for (let i = 0; i < queues; i++) ++offsets[i]!;
      updates += queues;
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  const latencies: number[] = [];
  let inFlight = false;
  let carried = { updates: 0, at: t0 };
  let endedAt = t0;
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (inFlight) return;
      inFlight = true;
      const snapshot = { updates, at: performance.now() };
      store.write(mqs.map((mq, i) => ({ mq, offset: offsets[i]!, lowering: false }))).then(
        () => {
          inFlight = false;
          endedAt = performance.now();
          latencies.push(endedAt - snapshot.at);
          carried = snapshot;
          if (latencies.length >= flushes) {
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
  if (inRedis !== carried.updates)
    throw new Error(`Redis holds ${inRedis} updates, the flushes carried ${carried.updates}`);
  if (fieldWrites > queues * latencies.length)
    throw new Error(`${fieldWrites} field writes in ${latencies.length} flushes of ${queues} queues`);
  await store.close();
  await redisCall(redis.port, 'DEL', offsetKeyOf(DEFAULT_KEY_PREFIX, group, TOPIC));
  const done = latencies.length;
  return {
    // Up to the end of the last flush: its writes are counted, so its time is too.
    fieldWritesPerSec: fieldWrites / ((endedAt - t0) / 1000),
    flushLatenciesMs: latencies,
    roundTripsPerFlush: (requests - scriptInternalCalls) / done,
    flushes: done,
    inMemoryUpdatesPerSec: carried.updates / ((carried.at - t0) / 1000),
  };
}

/** p50 and p99 of every flush latency of some rounds, ms. */
function latencyOf(rounds: readonly RoundResult[]): { p50: number; p99: number; n: number } {
  const all = rounds.flatMap((r) => r.flushLatenciesMs).sort((a, b) => a - b);
  return { p50: round(percentile(all, 50), 2), p99: round(percentile(all, 99), 2), n: all.length };
}

export const offsetsCase: BenchCase = {
  name: 'offsets',
  embedded: false,
  inAll: true,
  description:
    'Redis offset store: 1,000 queues committed continuously, flushed every 100 ms and every 5 s (needs redis-server on PATH, or REDIS_URL)',
  async run(args) {
    const queues = flag(args, 'queues', 1_000);
    const rounds = flag(args, 'rounds', 4);
    const fastFlushes = flag(args, 'flushes', 50);
    const slowFlushes = flag(args, 'flushes5s', 2);
    const redis = await startRedisServer();
    try {
      log(
        `settings: redis ${redis.external ? 'from REDIS_URL' : 'started on this machine'}; ${queues} queues, each updated once per event-loop turn; ` +
          `a persist of every queue each 100 ms (${fastFlushes} flushes per round) and each 5 s (${slowFlushes} per round), skipped while one runs; ${rounds} rounds; ` +
          `Redis figures: offset fields written per second (at most one per queue per flush) and flush latency (write() to resolved) p50/p99 over every flush; ` +
          `round trips per flush from INFO commandstats; in-memory updates/s only as a secondary figure`,
      );
      const fast: RoundResult[] = [];
      const slow: RoundResult[] = [];
      for (let r = 0; r < rounds; r++) {
        fast.push(await runRound(redis, queues, 100, fastFlushes));
        slow.push(await runRound(redis, queues, 5_000, slowFlushes));
        const [f, s] = [fast.at(-1)!, slow.at(-1)!];
        const [fl, sl] = [latencyOf([f]), latencyOf([s])];
        log(
          `round ${r + 1}: 100 ms flush: ${Math.round(f.fieldWritesPerSec)} field writes/s, flush p50 ${fl.p50} ms p99 ${fl.p99} ms, ` +
            `${f.roundTripsPerFlush.toFixed(3)} round trips/flush over ${f.flushes} (in memory: ${Math.round(f.inMemoryUpdatesPerSec)} updates/s); ` +
            `5 s flush: ${Math.round(s.fieldWritesPerSec)} field writes/s, flush p50 ${sl.p50} ms, ${s.roundTripsPerFlush.toFixed(3)} round trips/flush over ${s.flushes}`,
        );
      }
      const spreads: Record<string, Spread> = {
        fieldWritesPerSec: spreadOf(fast.map((x) => x.fieldWritesPerSec)),
        flushP50Ms: spreadOf(fast.map((x) => latencyOf([x]).p50)),
        fieldWritesPerSec5s: spreadOf(slow.map((x) => x.fieldWritesPerSec)),
      };
      for (const [name, s] of Object.entries(spreads)) {
        log(describeSpread(name, s, name.endsWith('Ms') ? 'ms' : '/s'));
        spreads[name] = { ...s, median: round(s.median, 2) };
      }
      const [fl, sl] = [latencyOf(fast), latencyOf(slow)];
      const roundTripsPerFlush = median([...fast, ...slow].map((x) => x.roundTripsPerFlush));
      return {
        queues,
        fieldWritesPerSec: Math.round(spreads.fieldWritesPerSec!.median),
        flushP50Ms: fl.p50,
        flushP99Ms: fl.p99,
        flushes: fl.n,
        fieldWritesPerSec5s: Math.round(spreads.fieldWritesPerSec5s!.median),
        flush5sP50Ms: sl.p50,
        // Over only rounds x flushes5s flushes: the slowest of them, not a tail estimate.
        flush5sMaxMs: round(Math.max(...slow.flatMap((x) => x.flushLatenciesMs)), 2),
        roundTripsPerFlush,
        oneRoundTripPerFlush: roundTripsPerFlush === 1,
        spreads,
        inMemoryUpdatesPerSec: Math.round(median(fast.map((x) => x.inMemoryUpdatesPerSec))),
        inMemoryUpdatesPerSec5s: Math.round(median(slow.map((x) => x.inMemoryUpdatesPerSec))),
      };
    } finally {
      await redis.stop();
    }
  },
  tableRow(file) {
    const r = file.result;
    const fmt = (n: unknown): string => (typeof n === 'number' ? Math.round(n).toLocaleString('en-US') : String(n));
    return {
      measured:
        `Redis offset store, ${fmt(r.queues)} queues updated continuously and persisted every 100 ms and every 5 s; what reaches Redis: ` +
        `offset fields written per second (at most one per queue per flush) and the latency of a flush (write() to resolved)`,
      result:
        `100 ms flushes: **${fmt(r.fieldWritesPerSec)} field writes/s**, flush p50 **${String(r.flushP50Ms)} ms**, p99 ${String(r.flushP99Ms)} ms over ${fmt(r.flushes)} flushes; ` +
        `5 s flushes: ${fmt(r.fieldWritesPerSec5s)} field writes/s, p50 ${String(r.flush5sP50Ms)} ms; ${String(r.roundTripsPerFlush)} round trip(s) per flush ` +
        `(in memory, before coalescing: ${fmt(r.inMemoryUpdatesPerSec)} updates/s)`,
      target: `1 round trip per flush: ${r.oneRoundTripPerFlush === true ? 'met' : 'missed'}`,
    };
  },
};
