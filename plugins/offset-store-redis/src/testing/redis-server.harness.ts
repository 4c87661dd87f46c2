import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@mqkit/core/testing';
import { spawnRedis, type RedisProcess } from './redis-process';

export interface StartRedisServerOptions {
  /** Port on 127.0.0.1; default a free ephemeral port. */
  readonly port?: number;
  /** Data directory (AOF, log); default a new temp dir, removed by `stop()`. A given dir is kept. */
  readonly dir?: string;
  /** Use `REDIS_URL` when it is set instead of starting a server (default true). Tests that restart the server pass false. */
  readonly useRedisUrl?: boolean;
  /**
   * Serves TLS only (`--port 0 --tls-port <port>`) with this certificate and key (PEM); `url` is then
   * `rediss://...` and clients must trust `cert` (e.g. `redis: { tls: { ca: cert } }`).
   */
  readonly tls?: { readonly cert: string; readonly key: string };
  /** Starts the server with `--requirepass`; `url` then carries the password. */
  readonly password?: string;
  /** Extra redis-server arguments, e.g. `['--maxmemory', '64mb']`. */
  readonly args?: readonly string[];
}

/** A Redis server for tests: its own process (or the one `REDIS_URL` names). */
export interface RedisServerHandle {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly dir: string;
  /** The server's pid; undefined while halted, or for a server given by REDIS_URL. */
  readonly pid: number | undefined;
  /** True when the server is the one REDIS_URL names: the harness neither restarts nor stops it. */
  readonly external: boolean;
  /** Stops the process (SIGTERM, by pid) and keeps port and data dir, so `restart()` brings the same data back. */
  halt(): Promise<void>;
  /** Starts the server again on the same port and dir (halting it first when it runs). */
  restart(): Promise<void>;
  /** Stops the process and removes the temp dir the harness created. */
  stop(): Promise<void>;
}

/**
 * Starts `redis-server` from PATH on a loopback port with `--appendonly yes --dir <tmp>`, or returns the server
 * `REDIS_URL` names. When redis-server is missing it fails with a message saying what to install.
 *
 * @example
 * ```ts
 * const redis = await startRedisServer();
 * const app = await createConsumerApp({ ..., offsetStore: redisOffsetStore({ url: redis.url }) });
 * // ...
 * await redis.stop();
 * ```
 */
export async function startRedisServer(options: StartRedisServerOptions = {}): Promise<RedisServerHandle> {
  const fromEnv = process.env.REDIS_URL;
  if (fromEnv && options.useRedisUrl !== false && options.port === undefined && options.dir === undefined)
    return externalServer(fromEnv);
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'mqkit-redis-'));
  const auth = { password: options.password, tls: options.tls && { ca: options.tls.cert } };
  const args = [
    ...(options.password === undefined ? [] : ['--requirepass', options.password]),
    ...(options.args ?? []),
  ];
  if (options.tls) {
    // redis-server reads certificates from files: keep them next to its data.
    writeFileSync(join(dir, 'tls-cert.pem'), options.tls.cert);
    writeFileSync(join(dir, 'tls-key.pem'), options.tls.key, { mode: 0o600 });
    args.push(
      '--tls-cert-file',
      join(dir, 'tls-cert.pem'),
      '--tls-key-file',
      join(dir, 'tls-key.pem'),
      '--tls-auth-clients',
      'no',
    );
  }
  let port = options.port ?? (await freePort());
  let server: RedisProcess | undefined;
  try {
    server = await spawnWithRetry();
  } catch (error) {
    if (ownDir) rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  // Only an ephemeral port may be re-picked: another process can take it between freePort() and the bind.
  async function spawnWithRetry(): Promise<RedisProcess> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await spawnRedis(port, dir, args, auth);
      } catch (error) {
        if (options.port !== undefined || attempt >= 3 || !/in use/i.test((error as Error).message)) throw error;
        port = await freePort();
      }
    }
  }

  const handle: RedisServerHandle = {
    get url() {
      return `${options.tls ? 'rediss' : 'redis'}://${options.password === undefined ? '' : `:${encodeURIComponent(options.password)}@`}127.0.0.1:${port}`;
    },
    host: '127.0.0.1',
    get port() {
      return port;
    },
    dir,
    get pid() {
      return server?.pid;
    },
    external: false,
    async halt() {
      const running = server;
      server = undefined;
      await running?.stop();
    },
    async restart() {
      await handle.halt();
      server = await spawnRedis(port, dir, args, auth);
    },
    async stop() {
      await handle.halt();
      if (ownDir) rmSync(dir, { recursive: true, force: true });
    },
  };
  return handle;
}

function externalServer(url: string): RedisServerHandle {
  const parsed = new URL(url);
  const cannot = (what: string) => async () => {
    throw new Error(
      `cannot ${what} the Redis server at REDIS_URL (${parsed.host}): the harness only controls servers it started; pass { useRedisUrl: false }`,
    );
  };
  return {
    url,
    host: parsed.hostname,
    port: Number(parsed.port || 6379),
    dir: '',
    pid: undefined,
    external: true,
    halt: cannot('halt'),
    restart: cannot('restart'),
    stop: async () => undefined,
  };
}
