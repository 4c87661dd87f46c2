import { execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, waitFor } from '@mqkit/core/testing';
import { redisCall } from './redis-call';
import { REDIS_INSTALL_HINT, spawnRedis, type RedisProcess } from './redis-process';

const run = promisify(execFile);

export interface StartRedisClusterOptions {
  /** Masters (default 3, the smallest cluster redis-cli creates). */
  readonly masters?: number;
}

/** A Redis Cluster of masters on loopback ports, every node its own process. */
export interface RedisClusterHandle {
  readonly nodes: ReadonlyArray<{ readonly host: string; readonly port: number; readonly pid: number }>;
  /** Stops every node by pid and removes the cluster's temp dir. */
  stop(): Promise<void>;
}

/**
 * Starts `masters` redis-server processes with `--cluster-enabled yes` (each with `--appendonly yes` in its own
 * temp dir), joins them with `redis-cli --cluster create ... --cluster-replicas 0 --cluster-yes`, and resolves
 * once every node reports `cluster_state:ok`.
 */
export async function startRedisCluster(options: StartRedisClusterOptions = {}): Promise<RedisClusterHandle> {
  const masters = options.masters ?? 3;
  if (!Number.isInteger(masters) || masters < 3)
    throw new Error(`startRedisCluster: masters = ${masters}; redis-cli needs at least 3`);
  const root = mkdtempSync(join(tmpdir(), 'mqkit-redis-cluster-'));
  const started: Array<{ port: number; process: RedisProcess }> = [];
  const stop = async (): Promise<void> => {
    await Promise.all(started.map((n) => n.process.stop()));
    rmSync(root, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < masters; i++) {
      const dir = join(root, `node-${i}`);
      mkdirSync(dir);
      // The bus port is normally port + 10000, which may be taken or past 65535; give it its own free port.
      const [port, busPort] = [await freePort(), await freePort()];
      const args = [
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        '--cluster-port',
        String(busPort),
        '--cluster-node-timeout',
        '3000',
      ];
      started.push({ port, process: await spawnRedis(port, dir, args) });
    }
    await createCluster(started.map((n) => n.port));
    await waitFor(
      async () => {
        for (const { port } of started) {
          const info = String(await redisCall(port, 'CLUSTER', 'INFO'));
          if (!info.includes('cluster_state:ok') || !info.includes(`cluster_known_nodes:${masters}`)) return false;
        }
        return true;
      },
      { timeoutMs: 20_000, intervalMs: 50, message: 'every cluster node to report cluster_state:ok' },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { nodes: started.map((n) => ({ host: '127.0.0.1', port: n.port, pid: n.process.pid })), stop };
}

async function createCluster(ports: readonly number[]): Promise<void> {
  const args = [
    '--cluster',
    'create',
    ...ports.map((p) => `127.0.0.1:${p}`),
    '--cluster-replicas',
    '0',
    '--cluster-yes',
  ];
  try {
    await run('redis-cli', args, { timeout: 30_000 });
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stdout?: string; stderr?: string };
    if (e.code === 'ENOENT') throw new Error(`redis-cli was not found on PATH: ${REDIS_INSTALL_HINT}`);
    throw new Error(
      `redis-cli --cluster create failed: ${(e.stderr || e.stdout || e.message).trim().split('\n').slice(-3).join(' | ')}`,
    );
  }
}
