import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '@mqkit/core/testing';
import { redisCall, type RedisAuth } from './redis-call';

/** What to install when redis-server is missing; the same words in every harness error. */
export const REDIS_INSTALL_HINT =
  'install Redis (Debian/Ubuntu: `apt-get install -y redis-server`; macOS: `brew install redis`) or set REDIS_URL to a server to use';

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

/** A test process that dies without stopping its servers must not leave them running. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of live) child.kill('SIGKILL');
  });
}

/** One running redis-server child, bound to 127.0.0.1. */
export interface RedisProcess {
  readonly pid: number;
  /** Resolves when the process has exited. */
  readonly exited: Promise<void>;
  /** SIGTERM (Redis fsyncs its AOF and exits), SIGKILL after 10 s; resolves when the process is gone. */
  stop(): Promise<void>;
}

/**
 * Spawns `redis-server` from PATH with its data and log in `dir`, and waits until it answers PING (after loading
 * its AOF). The wait (8 s) stays below vitest's default hook timeout, so a server that never answers is stopped
 * here rather than left behind by a timed-out hook. Fails with REDIS_INSTALL_HINT when the binary is missing, and
 * with the log's tail when the server exits during start (a port taken meanwhile, a bad option).
 */
export async function spawnRedis(
  port: number,
  dir: string,
  extraArgs: readonly string[] = [],
  auth: RedisAuth = {},
): Promise<RedisProcess> {
  installExitHook();
  const logFile = join(dir, 'redis.log');
  // A TLS server listens on its TLS port only.
  const ports = auth.tls ? ['--port', '0', '--tls-port', String(port)] : ['--port', String(port)];
  const args = [
    ...ports,
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--appendonly',
    'yes',
    '--save',
    '',
    '--daemonize',
    'no',
    '--logfile',
    logFile,
    ...extraArgs,
  ];
  const child = spawn('redis-server', args, { stdio: 'ignore' });
  live.add(child);
  let exitedEarly: Error | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      live.delete(child);
      exitedEarly = new Error(`redis-server on port ${port} exited (${signal ?? `code ${code}`}): ${logTail(logFile)}`);
      resolve();
    });
    child.once('error', (error: NodeJS.ErrnoException) => {
      live.delete(child);
      exitedEarly =
        error.code === 'ENOENT'
          ? new Error(`redis-server was not found on PATH: ${REDIS_INSTALL_HINT}`)
          : new Error(`cannot start redis-server: ${error.message}`);
      resolve();
    });
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return exited;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    try {
      await exited;
    } finally {
      clearTimeout(timer);
    }
  };
  try {
    await waitFor(
      async () => {
        // An exited server ends the wait at once; the error below says why.
        if (exitedEarly) return true;
        return (await redisCall({ port, ...auth }, 'PING')) === 'PONG';
      },
      { timeoutMs: 8_000, intervalMs: 25, message: `redis-server on 127.0.0.1:${port} to answer PING` },
    );
  } catch (error) {
    await stop();
    throw exitedEarly ?? error;
  }
  if (exitedEarly) throw exitedEarly;
  return { pid: child.pid!, exited, stop };
}

function logTail(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-3).join(' | ') || 'empty log';
  } catch {
    return 'no log';
  }
}
