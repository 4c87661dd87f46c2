import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { redisCall } from './redis-call';
import { startRedisServer } from './redis-server.harness';

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('startRedisServer', () => {
  const savedPath = process.env.PATH;
  const savedUrl = process.env.REDIS_URL;
  afterEach(() => {
    process.env.PATH = savedPath;
    if (savedUrl === undefined) delete process.env.REDIS_URL;
    else process.env.REDIS_URL = savedUrl;
  });

  it('starts redis-server with an AOF in its dir, restarts it on the same port with the data, stops it by pid and removes the dir', async () => {
    const redis = await startRedisServer({ useRedisUrl: false });
    const firstPid = redis.pid!;
    try {
      expect(redis.url).toBe(`redis://127.0.0.1:${redis.port}`);
      expect(String(await redisCall(redis.port, 'CONFIG', 'GET', 'appendonly'))).toContain('yes');
      await redisCall(redis.port, 'SET', 'k', 'v');
      await redis.halt();
      expect(redis.pid).toBeUndefined();
      expect(isAlive(firstPid)).toBe(false);
      await expect(redisCall(redis.port, 'PING')).rejects.toThrow();
      await redis.restart();
      expect(redis.pid).not.toBe(firstPid);
      expect(await redisCall(redis.port, 'GET', 'k')).toBe('v');
    } finally {
      const pid = redis.pid!;
      await redis.stop();
      expect(isAlive(pid)).toBe(false);
      expect(existsSync(redis.dir)).toBe(false);
    }
  });

  it('says what to install when redis-server is not on PATH', async () => {
    process.env.PATH = '/nonexistent';
    await expect(startRedisServer({ useRedisUrl: false })).rejects.toThrow(
      /redis-server was not found on PATH.*apt-get install -y redis-server/,
    );
  });

  it('uses REDIS_URL when set, and refuses to restart a server it did not start', async () => {
    process.env.REDIS_URL = 'redis://10.1.2.3:6390';
    const redis = await startRedisServer();
    expect(redis).toMatchObject({
      external: true,
      url: 'redis://10.1.2.3:6390',
      host: '10.1.2.3',
      port: 6390,
      pid: undefined,
    });
    await expect(redis.restart()).rejects.toThrow(/useRedisUrl: false/);
    await redis.stop();
  });
});
