import { EventBus, OffsetStoreError, type MessageQueue } from '@mqkit/core';
import { waitFor } from '@mqkit/core/testing';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { afterEach, afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisOffsetStore } from './redis-offset-store';
import { resolveRedisOffsetStoreOptions, type RedisOffsetStoreOptions } from './redis-offset-store.options';
import { redisCall, startRedisServer, type RedisServerHandle } from './testing';
import { TEST_TLS_CERT, TEST_TLS_KEY } from './testing/tls.fixture';

// Connecting: unreachable servers, auth, database, TLS, and outages of a running store. Each block has its own server.
const open: RedisOffsetStore[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

const q = (topic: string, queueId: number, brokerName = 'broker-a'): MessageQueue => ({ topic, brokerName, queueId });
const newGroup = () => `g-${randomUUID().slice(0, 8)}`;
const at = (mq: MessageQueue, offset: number) => ({ mq, offset, lowering: false });

function store(group: string, options: RedisOffsetStoreOptions, events = new EventBus()): RedisOffsetStore {
  const s = new RedisOffsetStore({ group, events, options: resolveRedisOffsetStoreOptions(options) });
  open.push(s);
  return s;
}

describe('RedisOffsetStore load', () => {
  it('fails load with an OffsetStoreError when Redis cannot be reached', async () => {
    const events = new EventBus();
    const errors: Error[] = [];
    events.on('offset-store.error', (e) => errors.push(e.error));
    const s = store(newGroup(), { url: 'redis://127.0.0.1:1' }, events);
    await expect(s.load()).rejects.toThrow(/cannot connect to Redis.*ECONNREFUSED/);
    expect(errors).toHaveLength(1);
  });
});

describe('RedisOffsetStore auth and database', () => {
  let secured: RedisServerHandle;
  beforeAll(async () => {
    secured = await startRedisServer({ useRedisUrl: false, password: 's3cret' });
  });
  afterAll(async () => {
    await secured?.stop();
  });

  it('passes the password and database number of the URL to ioredis', async () => {
    const group = newGroup();
    const s = store(group, { url: `redis://:s3cret@127.0.0.1:${secured.port}/3` });
    await s.load();
    await s.write([at(q('T', 0), 21)]);
    const probe = new Redis({ port: secured.port, host: '127.0.0.1', password: 's3cret', db: 3, lazyConnect: true });
    try {
      await probe.connect();
      expect(await probe.hget(`mqkit:offset:{${group}}:T`, 'broker-a:0')).toBe('21');
      await probe.select(0);
      expect(await probe.exists(`mqkit:offset:{${group}}:T`)).toBe(0);
    } finally {
      probe.disconnect();
    }
  });

  it("fails load with the server's answer when the password is wrong", async () => {
    const s = store(newGroup(), { url: `redis://127.0.0.1:${secured.port}`, redis: { password: 'wrong' } });
    await expect(s.load()).rejects.toThrow(OffsetStoreError);
  });
});

describe('RedisOffsetStore over TLS', () => {
  let secure: RedisServerHandle;
  beforeAll(async () => {
    secure = await startRedisServer({ useRedisUrl: false, tls: { cert: TEST_TLS_CERT, key: TEST_TLS_KEY } });
  });
  afterAll(async () => {
    await secure?.stop();
  });

  it('connects with a rediss:// URL and the tls options passed through to ioredis', async () => {
    const group = newGroup();
    expect(secure.url).toBe(`rediss://127.0.0.1:${secure.port}`);
    const s = store(group, { url: secure.url, redis: { tls: { ca: TEST_TLS_CERT } } });
    await s.load();
    await s.write([at(q('T', 0), 33)]);
    expect(
      await redisCall(
        { port: secure.port, tls: { ca: TEST_TLS_CERT } },
        'HGET',
        `mqkit:offset:{${group}}:T`,
        'broker-a:0',
      ),
    ).toBe('33');
  });

  it('refuses a server whose certificate it does not trust', async () => {
    const s = store(newGroup(), { url: secure.url });
    await expect(s.load()).rejects.toThrow(/cannot connect to Redis.*(self.signed|certificate)/i);
  });
});

describe('RedisOffsetStore while Redis is down', () => {
  it('fails writes at once, reports each failure, and the first flush after the restart writes the latest offsets', async () => {
    const server = await startRedisServer({ useRedisUrl: false });
    try {
      const group = newGroup();
      const events = new EventBus();
      const errors: string[] = [];
      events.on('offset-store.error', (e) => errors.push(e.error.message));
      const s = new RedisOffsetStore({ group, events, options: resolveRedisOffsetStoreOptions({ url: server.url }) });
      open.push(s);
      await s.load();
      await s.write([at(q('T', 0), 100)]);
      await server.halt();
      await waitFor(() => errors.some((m) => m.includes('lost the connection')), {
        message: 'the lost-connection event',
      });
      const failure = await s.write([at(q('T', 0), 150)]).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(failure).toBeInstanceOf(OffsetStoreError);
      expect((failure as OffsetStoreError).retriable).toBe(true);
      expect((failure as Error).message).toMatch(/unreachable/);
      await expect(s.read(q('T', 0))).rejects.toThrow(OffsetStoreError);
      await server.restart();
      expect(await redisCall(server.port, 'HGET', `mqkit:offset:{${group}}:T`, 'broker-a:0')).toBe('100');
      // ConsumeProgress hands its latest offset again at every write until one is stored.
      await waitFor(() => s.write([at(q('T', 0), 180)]).then(() => true), {
        timeoutMs: 10_000,
        intervalMs: 100,
        message: 'a flush after the reconnect',
      });
      expect(await redisCall(server.port, 'HGET', `mqkit:offset:{${group}}:T`, 'broker-a:0')).toBe('180');
      expect(errors.filter((m) => m.includes('cannot write')).length).toBeGreaterThanOrEqual(1);
    } finally {
      await server.stop();
    }
  });

  it('asks to pause pulling past maxUnpersistedMessages and to resume after a successful flush', async () => {
    const server = await startRedisServer({ useRedisUrl: false });
    try {
      const s = new RedisOffsetStore({
        group: newGroup(),
        events: new EventBus(),
        options: resolveRedisOffsetStoreOptions({ url: server.url, maxUnpersistedMessages: 100 }),
      });
      open.push(s);
      const signals: boolean[] = [];
      s.watchBackpressure((paused) => signals.push(paused));
      await s.load();
      const [a, b] = [q('T', 0), q('T', 1)];
      await s.write([at(a, 1_000), at(b, 0)]);
      await server.halt();
      await expect(s.write([at(a, 1_060)])).rejects.toThrow(OffsetStoreError);
      expect(signals).toEqual([]);
      // What failed before still counts: 60 of a and 41 of b are not in Redis.
      await expect(s.write([at(b, 41)])).rejects.toThrow(OffsetStoreError);
      expect(signals).toEqual([true]);
      const late: boolean[] = [];
      s.watchBackpressure((paused) => late.push(paused));
      expect(late).toEqual([true]);
      await server.restart();
      await waitFor(() => s.write([at(a, 1_060), at(b, 41)]).then(() => true), {
        timeoutMs: 10_000,
        intervalMs: 100,
        message: 'a flush after the reconnect',
      });
      expect(signals).toEqual([true, false]);
    } finally {
      await server.stop();
    }
  });
});
