import { ConfigurationError } from '@mqkit/core';
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
