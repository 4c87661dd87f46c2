import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { RocketMqHarnessError } from './rocketmq-harness.error';

/** How to (re)start one harness process: enough to restart it from another process. */
export interface ProcessSpec {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** stdout and stderr are appended here. */
  readonly logFile: string;
}

/**
 * Starts a process with output appended to its log file. `detached` (own process group, unref'd) lets a test
 * worker restart a broker that must outlive the worker; the owner stops it later by pid.
 */
export function spawnProcess(spec: ProcessSpec, options: { detached?: boolean; env?: NodeJS.ProcessEnv } = {}): number {
  const fd = openSync(spec.logFile, 'a');
  try {
    const child = spawn(spec.command, [...spec.args], {
      cwd: spec.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', fd, fd],
      detached: options.detached ?? false,
    });
    if (child.pid === undefined) throw new RocketMqHarnessError('start', `could not start ${spec.command}`);
    // The exit is observed by polling the pid (the same way for our own children and for adopted ones).
    child.on('error', () => undefined);
    if (options.detached) child.unref();
    return child.pid;
  } finally {
    closeSync(fd);
  }
}

/** True while `pid` runs (a zombie, which has exited but not been reaped, counts as gone). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc: trust kill(0)
  }
}

/** True when `pid`'s command line contains `marker` (guards against signalling a reused pid). */
export function processMatches(pid: number, marker: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
  } catch {
    return isProcessAlive(pid);
  }
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Stops `pid` if it is still the process we started (its command line contains `marker`): SIGTERM (the JVM runs
 * RocketMQ's shutdown hook, which flushes offsets and the store), then SIGKILL after `graceMs`. `force` sends
 * SIGKILL at once (a crash). Resolves when the process is gone.
 */
export async function stopProcess(
  pid: number,
  marker: string,
  options: { graceMs?: number; force?: boolean } = {},
): Promise<void> {
  if (!isProcessAlive(pid) || !processMatches(pid, marker)) return;
  const graceMs = options.force ? 0 : (options.graceMs ?? 15_000);
  try {
    process.kill(pid, options.force ? 'SIGKILL' : 'SIGTERM');
  } catch {
    return;
  }
  const termDeadline = Date.now() + graceMs;
  while (isProcessAlive(pid) && Date.now() < termDeadline) await pause(100);
  if (isProcessAlive(pid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      return;
    }
    const killDeadline = Date.now() + 10_000;
    while (isProcessAlive(pid) && Date.now() < killDeadline) await pause(50);
    if (isProcessAlive(pid)) throw new RocketMqHarnessError('stop', `process ${pid} survived SIGKILL for 10 s`);
  }
}
