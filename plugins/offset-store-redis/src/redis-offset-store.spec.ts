import { EventBus, OffsetStoreError, type MessageQueue } from '@mqkit/core';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisOffsetStore } from './redis-offset-store';
import { resolveRedisOffsetStoreOptions, type RedisOffsetStoreOptions } from './redis-offset-store.options';
import { commandCalls, redisCall, startRedisServer, type RedisServerHandle } from './testing';

let redis: RedisServerHandle;
const open: RedisOffsetStore[] = [];

beforeAll(async () => {
  redis = await startRedisServer({ useRedisUrl: false });
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await redis?.stop();
});

const q = (topic: string, queueId: number, brokerName = 'broker-a'): MessageQueue => ({ topic, brokerName, queueId });
const newGroup = () => `g-${randomUUID().slice(0, 8)}`;
const at = (mq: MessageQueue, offset: number) => ({ mq, offset, lowering: false });

function store(group: string, options: RedisOffsetStoreOptions = {}, events = new EventBus()): RedisOffsetStore {
  const s = new RedisOffsetStore({
    group,
    events,
    options: resolveRedisOffsetStoreOptions({ url: redis.url, ...options }),
  });
  open.push(s);
  return s;
}

/** Script calls (EVAL the first time on a connection, EVALSHA after) and every other command, since `before`. */
async function callsSince(before: Map<string, number>): Promise<Map<string, number>> {
  const after = await commandCalls(redis.port);
  const delta = new Map<string, number>();
  for (const [name, n] of after) if (n - (before.get(name) ?? 0) > 0) delta.set(name, n - (before.get(name) ?? 0));
  // The probe's own connection: HELLO, and INFO for the ready check and the stats themselves.
  delta.delete('info');
  delta.delete('hello');
  return delta;
}

describe('RedisOffsetStore on a real redis-server', () => {
  it('writes hashes a person can read: <prefix>{<group>}:<topic>, field <brokerName>:<queueId>', async () => {
    const group = newGroup();
    const s = store(group, { keyPrefix: 'offsets:' });
    await s.load();
    await s.write([at(q('orders', 0), 17), at(q('orders', 3, 'broker-b'), 5), at(q(`%RETRY%${group}`, 0), 2)]);
    expect(await redisCall(redis.port, 'HGETALL', `offsets:{${group}}:orders`)).toEqual([
      'broker-a:0',
      '17',
      'broker-b:3',
      '5',
    ]);
    expect(await redisCall(redis.port, 'HGET', `offsets:{${group}}:%RETRY%${group}`, 'broker-a:0')).toBe('2');
  });

  it('flushes 1,000 queues of two topics in one script call, and makes no call for an empty write', async () => {
    const events = new EventBus();
    const flushes: number[] = [];
    events.on('offset-store.flush', (e) => flushes.push(e.entries));
    const s = store(newGroup(), {}, events);
    await s.load();
    const queues = Array.from({ length: 1_000 }, (_, i) => q(i % 2 ? 'T1' : 'T2', i));
    const before = await commandCalls(redis.port);
    await s.write(queues.map((mq, i) => at(mq, i + 1)));
    // commandstats also counts the HGET/HSET the script runs inside Redis: one per queue, not round trips.
    const delta = Object.fromEntries(await callsSince(before));
    expect((delta.eval ?? 0) + (delta.evalsha ?? 0)).toBe(1);
    expect(delta).toMatchObject({ hget: 1_000, hset: 1_000 });
    expect(Object.keys(delta).filter((c) => !['eval', 'evalsha', 'hget', 'hset'].includes(c))).toEqual([]);
    expect(flushes).toEqual([1_000]);
    const empty = await commandCalls(redis.port);
    await s.write([]);
    expect((await callsSince(empty)).size).toBe(0);
    const second = await commandCalls(redis.port);
    await s.write(queues.map((mq, i) => at(mq, i + 2)));
    expect(Object.fromEntries(await callsSince(second))).toEqual({ evalsha: 1, hget: 1_000, hset: 1_000 });
  });

  it('emits consumer.commit for every offset a flush wrote', async () => {
    const events = new EventBus();
    const commits: string[] = [];
    events.on('consumer.commit', (e) => commits.push(`${e.mq.queueId}=${e.offset}`));
    const s = store(newGroup(), {}, events);
    await s.load();
    await s.write([at(q('T', 0), 4), at(q('T', 1), 6)]);
    expect(commits.sort()).toEqual(['0=4', '1=6']);
  });

  it('shares one flush among the writes of a tick, and does not send again what the flush before just wrote', async () => {
    const events = new EventBus();
    const flushes: number[] = [];
    events.on('offset-store.flush', (e) => flushes.push(e.entries));
    const group = newGroup();
    const s = store(group, {}, events);
    await s.load();
    // Two callers of one tick: one flush, the later entry of a queue winning.
    await Promise.all([s.write([at(q('T', 0), 3), at(q('T', 1), 4)]), s.write([at(q('T', 0), 5)])]);
    expect(flushes).toEqual([2]);
    // A write while a flush is under way joins the next one; what that flush wrote is not sent again.
    const first = s.write([at(q('T', 0), 6), at(q('T', 1), 7)]);
    // A few microtasks: the flush has taken its batch and waits for Redis, which cannot have answered yet.
    for (let i = 0; i < 3; i++) await Promise.resolve();
    const second = s.write([at(q('T', 0), 6), at(q('T', 2), 1)]);
    await Promise.all([first, second]);
    expect(flushes).toEqual([2, 2, 1]);
    expect(await redisCall(redis.port, 'HGETALL', `mqkit:offset:{${group}}:T`)).toEqual([
      'broker-a:0',
      '6',
      'broker-a:1',
      '7',
      'broker-a:2',
      '1',
    ]);
  });

  it('refuses offsets that are not non-negative integers', async () => {
    const s = store(newGroup());
    await s.load();
    await expect(s.write([at(q('T', 0), -1)])).rejects.toThrow(OffsetStoreError);
    await expect(s.write([at(q('T', 1), 3), at(q('T', 0), 1.5)])).rejects.toThrow(/non-negative integer/);
    await expect(s.write([{ mq: q('T', 0), offset: Number.NaN, lowering: true }])).rejects.toThrow(OffsetStoreError);
    // Refused before anything was sent: the valid entry of a refused write is not written either.
    expect(await s.read(q('T', 1))).toBe(-1);
  });

  it('leaves an unreadable stored value alone on commit and says which key; a reset repairs it', async () => {
    const group = newGroup();
    const events = new EventBus();
    const errors: Error[] = [];
    events.on('offset-store.error', (e) => errors.push(e.error));
    const s = store(group, {}, events);
    await s.load();
    await redisCall(redis.port, 'HSET', `mqkit:offset:{${group}}:T`, 'broker-a:0', 'garbage');
    const failure = await s.write([at(q('T', 0), 10), at(q('T', 1), 11)]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(OffsetStoreError);
    expect((failure as OffsetStoreError).key).toBe(`mqkit:offset:{${group}}:T`);
    expect((failure as OffsetStoreError).message).toContain('broker-a:0');
    expect(errors).toContain(failure);
    expect(await redisCall(redis.port, 'HMGET', `mqkit:offset:{${group}}:T`, 'broker-a:0', 'broker-a:1')).toEqual([
      'garbage',
      '11',
    ]);
    await s.write([{ mq: q('T', 0), offset: 3, lowering: true }]);
    expect(await redisCall(redis.port, 'HGET', `mqkit:offset:{${group}}:T`, 'broker-a:0')).toBe('3');
  });

  it('rejects a write after close, and close waits for the flush in flight', async () => {
    const group = newGroup();
    const s = store(group);
    await s.load();
    const inFlight = s.write([at(q('T', 0), 9)]);
    await s.close();
    await inFlight;
    expect(await redisCall(redis.port, 'HGET', `mqkit:offset:{${group}}:T`, 'broker-a:0')).toBe('9');
    await expect(s.write([at(q('T', 0), 10)])).rejects.toThrow(/closed/);
  });
});
