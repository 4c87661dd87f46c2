import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The RocketMQ release the harness runs. 5.3.3 is the newest release whose source the project's protocol notes
 * (docs/remoting-protocol.md) were checked against; `MQKIT_ROCKETMQ_VERSION` overrides it for compatibility runs.
 */
export const ROCKETMQ_VERSION = '5.3.3';

/** `host:port` of an existing name server: when set, tests use that cluster and the harness starts nothing. */
export const NAMESRV_ENV = 'MQKIT_ROCKETMQ_NAMESRV';

/** Root of mqkit's caches outside the repository (jars, built Java bench programs). */
export const CACHE_DIR_ENV = 'MQKIT_CACHE_DIR';

/** The version to run: `MQKIT_ROCKETMQ_VERSION` or {@link ROCKETMQ_VERSION}. */
export function rocketMqVersion(env: NodeJS.ProcessEnv = process.env): string {
  return env.MQKIT_ROCKETMQ_VERSION || ROCKETMQ_VERSION;
}

/**
 * mqkit's cache root: `$MQKIT_CACHE_DIR`, else `$XDG_CACHE_HOME/mqkit`, else `~/.cache/mqkit`. Never inside the
 * repository, so `git clean` keeps it and nothing downloaded is committed.
 */
export function mqkitCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env[CACHE_DIR_ENV]) return env[CACHE_DIR_ENV]!;
  const xdg = env.XDG_CACHE_HOME;
  return xdg ? join(xdg, 'mqkit') : join(homedir(), '.cache', 'mqkit');
}
