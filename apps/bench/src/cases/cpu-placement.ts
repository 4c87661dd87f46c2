import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';

/**
 * Which CPUs the RocketMQ benches give the servers and which the client under test.
 *
 * On this 2-core machine the broker, its name server and the client under test otherwise share both cores, and
 * the scheduler decides each run anew who waits for whom: the same client's steady rate moved by 25-35 % between
 * reruns. With the cluster (and the bench's own orchestrating process) on CPU 0 and every client process on the
 * others, mqkit, Java and the raw pull each get the same core to themselves, and reruns agree. Like a consumer in a
 * container with a one-core limit next to its broker, that is a setting, printed with the settings; set
 * MQKIT_BENCH_PIN=off to let the scheduler place everything.
 */
export interface CpuPlacement {
  /** A taskset CPU list, e.g. "0". */
  readonly server: string;
  /** A taskset CPU list, e.g. "1" or "1-3". */
  readonly client: string;
}

export type CpuRole = keyof CpuPlacement;

let active: CpuPlacement | undefined;

function tasksetWorks(): boolean {
  return spawnSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' }).status === 0;
}

function taskset(args: readonly string[]): void {
  const r = spawnSync('taskset', [...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`taskset ${args.join(' ')} failed: ${r.stderr || r.error?.message || r.status}`);
}

/**
 * The placement this machine allows (at least 2 CPUs and a working taskset, and not turned off), without
 * applying it; undefined when processes are left to the scheduler.
 */
export function plannedPlacement(): CpuPlacement | undefined {
  if (process.env.MQKIT_BENCH_PIN === 'off') return undefined;
  const n = cpus().length;
  if (n < 2 || process.platform !== 'linux' || !tasksetWorks()) return undefined;
  return { server: '0', client: n === 2 ? '1' : `1-${n - 1}` };
}

/**
 * Pins the cluster's processes (every thread: `taskset -a`) and this process to the server CPUs, and makes every
 * later bench child a client (see `placeCommand`). Returns the line to log, which says what was done.
 */
export function pinServers(pids: readonly number[]): string {
  const placement = plannedPlacement();
  if (!placement) {
    active = undefined;
    return `cpu placement: none (MQKIT_BENCH_PIN=off, fewer than 2 CPUs or no taskset): the scheduler places the cluster and the clients`;
  }
  for (const pid of [...pids, process.pid]) taskset(['-a', '-p', '-c', placement.server, String(pid)]);
  active = placement;
  return `cpu placement: name server, brokers and the bench's parent process on CPU ${placement.server}; every client process (mqkit, Java, raw) on CPU ${placement.client} (taskset; MQKIT_BENCH_PIN=off to turn off)`;
}

/** The command that starts `command args` on the CPUs of `role`, when a placement is active. */
export function placeCommand(
  command: string,
  args: readonly string[],
  role: CpuRole = 'client',
): { command: string; args: string[] } {
  if (!active) return { command, args: [...args] };
  return { command: 'taskset', args: ['-c', active[role], command, ...args] };
}

/** How many CPUs the client processes are pinned to now: 0 while no placement is active. */
export function activeClientCpus(): number {
  if (!active) return 0;
  return active.client.split(',').reduce((n, part) => {
    const [from, to] = part.split('-').map(Number);
    return n + (to === undefined ? 1 : to! - from! + 1);
  }, 0);
}

/**
 * Forgets the placement (the cluster stopped) and gives this process every CPU again, so a later case of the same
 * `bench -- all` run, and its children, which inherit it, start wherever the scheduler puts them.
 */
export function clearPlacement(): void {
  if (!active) return;
  active = undefined;
  taskset(['-a', '-p', '-c', `0-${cpus().length - 1}`, String(process.pid)]);
}
