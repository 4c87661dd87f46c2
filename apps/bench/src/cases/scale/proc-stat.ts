import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { round } from '../../report/run-stats';
import { ThreadCpuClock } from './thread-cpu-clock';

/**
 * CPU and memory of a child process read by the parent from /proc, so mqkit's Node process and the JVM are
 * measured by the same code (neither side reports its own figures for these).
 */

let ticksPerSecond: number | undefined;

/** `getconf CLK_TCK`: the unit of utime/stime in /proc/<pid>/stat (normally 100). */
export function clockTicksPerSecond(): number {
  if (ticksPerSecond === undefined) {
    const probe = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
    const n = Number(probe.stdout?.trim());
    ticksPerSecond = Number.isFinite(n) && n > 0 ? n : 100;
  }
  return ticksPerSecond;
}

/** utime and stime of the process (all its threads), in clock ticks. */
export function cpuTicks(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Field 2 (comm) is in parentheses and may hold spaces: count from the last ')'. Fields 3.. follow it, so
  // utime (field 14) and stime (field 15) are the 12th and 13th after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]), system: Number(fields[12]) };
}

/** Read and write system calls the process made so far (syscr, syscw of /proc/<pid>/io; socket reads and writes count). */
export function syscalls(pid: number): { reads: number; writes: number } {
  const io = readFileSync(`/proc/${pid}/io`, 'utf8');
  const count = (key: string): number => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(io)?.[1] ?? Number.NaN);
  return { reads: count('syscr'), writes: count('syscw') };
}

/** VmRSS (now) and VmHWM (peak) of the process, in MiB with one decimal. */
export function memoryMb(pid: number): { rssMb: number; hwmMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key: string): number => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN);
  return { rssMb: round(kib('VmRSS') / 1024, 1), hwmMb: round(kib('VmHWM') / 1024, 1) };
}

export interface IdleWindow {
  /** CPU time of all threads (the scheduler's ns) over the window as % of one core. */
  readonly cpuPct: number;
  /** The stime part of it (system calls: sockets, timers, epoll). */
  readonly systemPct: number;
  /** The same per slice of the window, to show a warm-up tail or a periodic task. */
  readonly slicesPct: readonly number[];
  /**
   * Read and write system calls per second over the window: an idle consumer's work is its requests (pulls that
   * the broker holds, heartbeats, offset commits), so a CPU figure that moves while these do not is the process's
   * own (JIT, GC), and one that moves with them is traffic.
   */
  readonly readsPerSec: number;
  readonly writesPerSec: number;
  readonly rssMb: number;
  readonly hwmMb: number;
}

/**
 * CPU use of an otherwise idle process over `seconds`: the scheduler's nanoseconds of all its threads
 * (ThreadCpuClock), read at the start, every `sliceSeconds` and at the end (reading /proc costs the child nothing);
 * the system part from stime ticks; memory at the end of the window.
 */
export async function idleWindow(pid: number, seconds: number, sliceSeconds = 5): Promise<IdleWindow> {
  const hz = clockTicksPerSecond();
  const pctOfNs = (cpuNs: number, ns: bigint): number => round((cpuNs / Number(ns)) * 100, 2);
  const started = process.hrtime.bigint();
  const clock = new ThreadCpuClock(pid);
  const first = cpuTicks(pid);
  const firstCalls = syscalls(pid);
  const slices: number[] = [];
  let lastNs = 0;
  let lastAt = started;
  for (let left = seconds; left > 0; left -= sliceSeconds) {
    await new Promise((r) => setTimeout(r, Math.min(left, sliceSeconds) * 1000));
    const now = process.hrtime.bigint();
    const cpuNs = clock.read();
    slices.push(pctOfNs(cpuNs - lastNs, now - lastAt));
    lastNs = cpuNs;
    lastAt = now;
  }
  const calls = syscalls(pid);
  const system = cpuTicks(pid).system - first.system;
  const elapsed = lastAt - started;
  const perSec = (n: number): number => round(n / (Number(elapsed) / 1e9), 1);
  return {
    cpuPct: pctOfNs(lastNs, elapsed),
    systemPct: round((system / hz / (Number(elapsed) / 1e9)) * 100, 2),
    slicesPct: slices,
    readsPerSec: perSec(calls.reads - firstCalls.reads),
    writesPerSec: perSec(calls.writes - firstCalls.writes),
    ...memoryMb(pid),
  };
}
