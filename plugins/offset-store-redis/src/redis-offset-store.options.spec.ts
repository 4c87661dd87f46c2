import { ConfigurationError } from '@mqkit/core';
import { Cluster, Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { DEFAULT_KEY_PREFIX, resolveRedisOffsetStoreOptions } from './redis-offset-store.options';
import { redisOffsetStore } from './redis-offset-store.provider';

describe('redisOffsetStore options', () => {
  it('applies the defaults', () => {
    const o = resolveRedisOffsetStoreOptions();
    expect(o).toMatchObject({
      url: undefined,
      keyPrefix: DEFAULT_KEY_PREFIX,
      maxUnpersistedMessages: Number.POSITIVE_INFINITY,
      commandTimeoutMs: 5_000,
    });
    expect(DEFAULT_KEY_PREFIX).toBe('mqkit:offset:');
  });

  it('accepts redis:// and rediss:// URLs with user, password and database', () => {
    expect(resolveRedisOffsetStoreOptions({ url: 'rediss://app:secret@cache.internal:6380/4' }).url).toBe(
      'rediss://app:secret@cache.internal:6380/4',
    );
  });

  it.each([
    [{ url: 'http://127.0.0.1:6379' }, 'url'],
    [{ url: 'not a url' }, 'url'],
    [{ keyPrefix: 'offsets:{x}:' }, 'keyPrefix'],
    [{ maxUnpersistedMessages: 0 }, 'maxUnpersistedMessages'],
    [{ maxUnpersistedMessages: 1.5 }, 'maxUnpersistedMessages'],
    [{ commandTimeoutMs: -1 }, 'commandTimeoutMs'],
    [{ cluster: { nodes: [] } }, 'cluster.nodes'],
    [{ url: 'redis://a:1', cluster: { nodes: [{ host: 'b', port: 2 }] } }, 'cluster'],
  ])('rejects %j naming option %s', (options, option) => {
    let caught: unknown;
    try {
      redisOffsetStore(options as never);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigurationError);
    const error = caught as ConfigurationError;
    expect(error.source).toBe('redisOffsetStore');
    expect(error.issues.map((i) => i.option)).toContain(option);
  });

  it('takes an app client, Redis or Cluster, as it is', () => {
    const redis = new Redis({ lazyConnect: true });
    const cluster = new Cluster([{ host: '127.0.0.1', port: 7000 }], { lazyConnect: true });
    try {
      expect(resolveRedisOffsetStoreOptions({ client: redis }).client).toBe(redis);
      expect(resolveRedisOffsetStoreOptions({ client: cluster, keyPrefix: 'o:' })).toMatchObject({
        client: cluster,
        keyPrefix: 'o:',
      });
      expect(resolveRedisOffsetStoreOptions({ url: 'redis://a:1' })).not.toHaveProperty('client');
      expect(redis.status).toBe('wait');
    } finally {
      redis.disconnect();
      cluster.disconnect();
    }
  });

  it.each([
    [{ url: 'redis://a:1' }, 'url'],
    [{ redis: { db: 2 } }, 'redis'],
    [{ cluster: { nodes: [{ host: 'b', port: 2 }] } }, 'cluster'],
    [{ commandTimeoutMs: 100 }, 'commandTimeoutMs'],
  ])('refuses %j next to a client, naming option %s', (extra, option) => {
    const client = new Redis({ lazyConnect: true });
    try {
      let caught: unknown;
      try {
        redisOffsetStore({ client, ...extra });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ConfigurationError);
      expect((caught as ConfigurationError).issues.map((i) => i.option)).toEqual([option]);
    } finally {
      client.disconnect();
    }
  });

  it.each([[{}], [null], ['redis://127.0.0.1:6379'], [{ status: 'ready', hget: () => null }]])(
    'refuses %j as a client',
    (client) => {
      expect(() => redisOffsetStore({ client } as never)).toThrow(/client = .*an ioredis client/s);
    },
  );

  it('reports every invalid option at once', () => {
    expect(() => resolveRedisOffsetStoreOptions({ url: 'ftp://x', keyPrefix: '{', commandTimeoutMs: 0 })).toThrow(
      /3 invalid options/,
    );
  });

  it('serves CLUSTERING consumers only', () => {
    const provider = redisOffsetStore();
    expect(provider.name).toBe('redis');
    expect(provider.models).toEqual(['CLUSTERING']);
  });
});
