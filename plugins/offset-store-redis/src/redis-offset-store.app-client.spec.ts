import { Consumer, EventBus, OffsetStoreError, createConsumerApp, type Message, type MessageQueue } from '@mqkit/core';
import { describeOffsetStoreContract, waitFor } from '@mqkit/core/testing';
import { memoryTransport } from '@mqkit/transport-memory';
import { Cluster, Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { redisOffsetStore } from './redis-offset-store.provider';
import { RedisOffsetStore } from './redis-offset-store';
import { offsetFieldOf, offsetKeyOf } from './offset-keys';
import {
  DEFAULT_KEY_PREFIX,
  resolveRedisOffsetStoreOptions,
  type RedisOffsetStoreOptions,
} from './redis-offset-store.options';
import {
  redisCall,
  startRedisCluster,
  startRedisServer,
  type RedisClusterHandle,
  type RedisServerHandle,
} from './testing';

// The store on a client the app passed in: it is used as it is, and never closed by the store.
let redis: RedisServerHandle;
const stores: RedisOffsetStore[] = [];
const clients: Array<Redis | Cluster> = [];

beforeAll(async () => {
  redis = await startRedisServer({ useRedisUrl: false });
});
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
  for (const c of clients.splice(0)) c.disconnect();
});
afterAll(async () => {
  await redis?.stop();
});

const q = (topic: string, queueId: number): MessageQueue => ({ topic, brokerName: 'broker-a', queueId });
const newGroup = () => `g-${randomUUID().slice(0, 8)}`;
const at = (mq: MessageQueue, offset: number) => ({ mq, offset, lowering: false });
const EVENTS = ['error', 'close', 'ready'] as const;

/** An app's client: ioredis defaults (offline queue on, retries), nothing the store would have chosen. */
function appClient(port = redis.port, options: { lazyConnect?: boolean } = {}): Redis {
  const client = new Redis({ host: '127.0.0.1', port, ...options });
  clients.push(client);
  return client;
}

function store(group: string, options: RedisOffsetStoreOptions, events = new EventBus()): RedisOffsetStore {
  const s = new RedisOffsetStore({ group, events, options: resolveRedisOffsetStoreOptions(options) });
  stores.push(s);
  return s;
}

const listenerCounts = (client: Redis | Cluster) => EVENTS.map((e) => client.listenerCount(e));

describe('RedisOffsetStore on the app client (Redis)', () => {
  it('writes and reads through the client, and close() leaves it connected without the listeners it added', async () => {
    const client = appClient();
    await waitFor(() => client.status === 'ready', { message: 'the app client to be ready' });
    const before = listenerCounts(client);
    const group = newGroup();
    const s = store(group, { client });
    expect(listenerCounts(client)).not.toEqual(before);
    await s.load();
    await s.write([at(q('T', 0), 42)]);
    expect(await client.hget(`mqkit:offset:{${group}}:T`, 'broker-a:0')).toBe('42');
    const other = store(group, { client });
    expect(await other.read(q('T', 0))).toBe(42);

    await Promise.all([s.close(), other.close()]);
    expect(client.status).toBe('ready');
    expect(await client.ping()).toBe('PONG');
    expect(listenerCounts(client)).toEqual(before);
    await expect(s.write([at(q('T', 0), 43)])).rejects.toThrow(/closed/);
  });

  it('adds one listener per event to a client, however many groups share it', async () => {
    const client = appClient();
    await waitFor(() => client.status === 'ready', { message: 'the app client to be ready' });
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const before = listenerCounts(client);
      const many = Array.from({ length: 12 }, () => store(newGroup(), { client }));
      for (const s of many) await s.load();
      expect(listenerCounts(client)).toEqual(before.map((n) => n + 1));
      await Promise.all(many.slice(1).map((s) => s.close()));
      expect(listenerCounts(client)).toEqual(before.map((n) => n + 1));
      await many[0]?.close();
      expect(listenerCounts(client)).toEqual(before);
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('connects a lazyConnect client that has not connected yet, and leaves it connected after close()', async () => {
    const client = appClient(redis.port, { lazyConnect: true });
    expect(client.status).toBe('wait');
    const s = store(newGroup(), { client });
    await s.load();
    expect(client.status).toBe('ready');
    await s.close();
    expect(await client.ping()).toBe('PONG');
  });

  it('puts the keyPrefix of the client in front of its own keys', async () => {
    const client = new Redis({ host: '127.0.0.1', port: redis.port, keyPrefix: 'app:' });
    clients.push(client);
    const group = newGroup();
    const s = store(group, { client });
    await s.load();
    await s.write([at(q('T', 1), 5)]);
    expect(await redisCall(redis.port, 'HGET', `app:mqkit:offset:{${group}}:T`, 'broker-a:1')).toBe('5');
  });

  it('fails load when the client cannot connect, and leaves the client to its own reconnect policy', async () => {
    const client = appClient(1, { lazyConnect: true });
    const s = store(newGroup(), { client });
    await expect(s.load()).rejects.toThrow(/cannot connect to Redis.*ECONNREFUSED/);
    expect(client.status).not.toBe('end');
  });

  it('fails load when the app already closed the client', async () => {
    const client = appClient();
    await waitFor(() => client.status === 'ready', { message: 'the app client to be ready' });
    await client.quit();
    await waitFor(() => client.status === 'end', { message: 'the client to end' });
    const s = store(newGroup(), { client });
    await expect(s.load()).rejects.toThrow(/cannot connect to Redis.*was closed/);
  });

  it('fails a flush at once while Redis is down, even with the offline queue on, and writes after the reconnect', async () => {
    const server = await startRedisServer({ useRedisUrl: false });
    try {
      const client = appClient(server.port);
      const group = newGroup();
      const s = store(group, { client });
      await s.load();
      await s.write([at(q('T', 0), 10)]);
      await server.halt();
      await waitFor(() => client.status !== 'ready', { message: 'the client to notice the outage' });
      const failure = await s.write([at(q('T', 0), 20)]).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(failure).toBeInstanceOf(OffsetStoreError);
      expect((failure as OffsetStoreError).retriable).toBe(true);
      expect((failure as Error).message).toMatch(/unreachable/);
      await expect(s.read(q('T', 9))).rejects.toThrow(OffsetStoreError);
      await server.restart();
      await waitFor(() => s.write([at(q('T', 0), 20)]).then(() => true), {
        timeoutMs: 15_000,
        intervalMs: 100,
        message: 'a flush after the reconnect',
      });
      expect(await redisCall(server.port, 'HGET', `mqkit:offset:{${group}}:T`, 'broker-a:0')).toBe('20');
    } finally {
      await server.stop();
    }
  });

  it("stop() of an app leaves the app's client connected", async () => {
    const client = appClient();
    const group = newGroup();
    const seen: string[] = [];
    @Consumer({ group, topic: 'orders', consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' })
    class Orders {
      async handle(message: Message<string>): Promise<void> {
        seen.push(message.payload);
      }
    }
    const app = await createConsumerApp({
      transport: memoryTransport(),
      consumers: [Orders],
      offsetStore: redisOffsetStore({ client }),
      producer: { group: `${group}-producer` },
    });
    await app.start();
    await app.ready();
    await app.producer.send({ topic: 'orders', payload: 'A-1' });
    await waitFor(() => seen.length === 1, { message: 'the message to be consumed' });
    await app.stop({ timeoutMs: 5_000 });
    expect(client.status).toBe('ready');
    expect(await client.ping()).toBe('PONG');
    // The stop flushed the group's offset through the app's client.
    expect(await client.hgetall(`mqkit:offset:{${group}}:orders`)).not.toEqual({});
  });
});

describe('RedisOffsetStore on the app client (Cluster)', () => {
  let cluster: RedisClusterHandle;
  beforeAll(async () => {
    cluster = await startRedisCluster();
  }, 30_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it('writes through the cluster client, routed by the group hash tag, and close() leaves it connected', async () => {
    const client = new Cluster(cluster.nodes.map(({ host, port }) => ({ host, port })));
    clients.push(client);
    await waitFor(() => client.status === 'ready', { message: 'the cluster client to be ready' });
    const before = listenerCounts(client);
    const [a, b] = [newGroup(), newGroup()];
    const [sa, sb] = [store(a, { client }), store(b, { client })];
    await sa.load();
    await sb.load();
    expect(client.status).toBe('ready');
    await Promise.all([sa.write([at(q('T', 0), 7), at(q(`%RETRY%${a}`, 0), 2)]), sb.write([at(q('T', 0), 8)])]);
    expect(await client.hget(`mqkit:offset:{${a}}:T`, 'broker-a:0')).toBe('7');
    expect(await client.hget(`mqkit:offset:{${a}}:%RETRY%${a}`, 'broker-a:0')).toBe('2');
    expect(await client.hget(`mqkit:offset:{${b}}:T`, 'broker-a:0')).toBe('8');

    await Promise.all([sa.close(), sb.close()]);
    expect(client.status).toBe('ready');
    expect(await client.hget(`mqkit:offset:{${b}}:T`, 'broker-a:0')).toBe('8');
    expect(listenerCounts(client)).toEqual(before);
  });

  it('connects a lazyConnect cluster client on load', async () => {
    const client = new Cluster(
      cluster.nodes.map(({ host, port }) => ({ host, port })),
      { lazyConnect: true },
    );
    clients.push(client);
    expect(client.status).toBe('wait');
    const s = store(newGroup(), { client });
    await s.load();
    expect(client.status).toBe('ready');
    await s.close();
    expect(client.status).toBe('ready');
  });
});

describe('one app client shared by every store of the contract', () => {
  let shared: Redis;
  beforeAll(() => {
    shared = new Redis({ host: '127.0.0.1', port: redis.port, lazyConnect: true });
  });
  afterAll(() => shared?.disconnect());

  return describeOffsetStoreContract('redis (app client)', {
    backend: () => {
      const group = `contract-${randomUUID().slice(0, 8)}`;
      const options = resolveRedisOffsetStoreOptions({ client: shared });
      return {
        group,
        createStore: () => new RedisOffsetStore({ group, events: new EventBus(), options }),
        corrupt: async (mq) => {
          await redisCall(redis.port, 'HSET', offsetKeyOf(DEFAULT_KEY_PREFIX, group, mq.topic), offsetFieldOf(mq), 'x');
        },
        // Every store of the case was closed: the shared client must still serve the next case.
        dispose: () => expect(shared.status).toBe('ready'),
      };
    },
  });
});
