import { readdirSync, readFileSync } from 'node:fs';

/**
 * A process's CPU time in nanoseconds, from the scheduler's own count per thread (/proc/<pid>/task/<tid>/schedstat,
 * first field: time on a CPU). utime + stime in /proc/<pid>/stat come in clock ticks (10 ms): an idle member at
 * 64 queues uses 10 of them a minute, so one tick either way moved its idle figure by 10 %. The scheduler's count
 * has no such step. It is kept per thread, so a thread that ends takes its count with it; the clock remembers each
 * thread's last reading and keeps what it saw (only a thread born and ended between two readings goes uncounted:
 * read often, e.g. every 5 s).
 */
export class ThreadCpuClock {
  private readonly last = new Map<number, number>();
  private totalNs = 0;

  constructor(private readonly pid: number) {
    advance(this.last, readThreads(pid), true);
  }

  /** CPU time of every thread since the clock was made, in ns (reads /proc now). */
  read(): number {
    this.totalNs += advance(this.last, readThreads(this.pid), false);
    return this.totalNs;
  }
}

/**
 * Updates `last` (thread id -> its latest on-CPU ns) from a new reading and returns the ns added since: a thread
 * seen before adds its growth, a new one its whole count (it started since the last reading, unless `baseline`: the
 * first reading only sets the start), and one that is gone adds nothing more and is forgotten.
 */
export function advance(last: Map<number, number>, now: ReadonlyMap<number, number>, baseline: boolean): number {
  let added = 0;
  for (const [tid, ns] of now) {
    const before = last.get(tid);
    if (before === undefined) {
      if (!baseline) added += ns;
    } else if (ns > before) added += ns - before;
    last.set(tid, ns);
  }
  for (const tid of [...last.keys()]) if (!now.has(tid)) last.delete(tid);
  return added;
}

/** Each live thread's on-CPU ns; a thread that ends while it is read is left out. */
function readThreads(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const name of readdirSync(`/proc/${pid}/task`)) {
    try {
      out.set(Number(name), Number(readFileSync(`/proc/${pid}/task/${name}/schedstat`, 'utf8').split(' ')[0]));
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}
