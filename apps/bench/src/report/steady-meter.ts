import { steadyMarks } from './run-stats';

/**
 * The one steady-rate meter of the bench, for the TypeScript cases and for the Node child programs alike (they
 * require its built copy, dist/report/steady-meter.js); the Java programs stamp the same marks, passed to them.
 *
 * Counts handled messages of one run and stamps the clock when the count first reaches the 10 % and the 90 % mark,
 * keeping the exact count at each stamp (a batch of 32 steps over a mark), so the steady rate is exact:
 * (count at 90 % - count at 10 %) / (time between the stamps).
 */
export class SteadyMeter {
  count = 0;
  private readonly marks: { from: number; to: number };
  private fromNs = 0n;
  private fromCount = 0;
  private toNs = 0n;
  private toCount = 0;
  private firstNs = 0n;
  private lastNs = 0n;
  private startNs = process.hrtime.bigint();

  constructor(readonly expected: number) {
    this.marks = steadyMarks(expected);
  }

  /** Restarts the start-up clock (the meter may be built before the run it measures starts). */
  begin(): void {
    this.startNs = process.hrtime.bigint();
  }

  add(n: number): void {
    const before = this.count;
    this.count += n;
    if (before === 0) this.firstNs = process.hrtime.bigint();
    if (before < this.marks.from && this.count >= this.marks.from)
      [this.fromNs, this.fromCount] = [process.hrtime.bigint(), this.count];
    if (before < this.marks.to && this.count >= this.marks.to)
      [this.toNs, this.toCount] = [process.hrtime.bigint(), this.count];
    if (before < this.expected && this.count >= this.expected) this.lastNs = process.hrtime.bigint();
  }

  /** The steady window: the messages counted between the two stamps and the ns between them (0 before the 90 % mark). */
  window(): { messages: number; ns: number } {
    return this.toNs > 0n
      ? { messages: this.toCount - this.fromCount, ns: Number(this.toNs - this.fromNs) }
      : { messages: 0, ns: 0 };
  }

  get done(): boolean {
    return this.count >= this.expected;
  }

  /**
   * Steady msg/s (10 %-90 %), total msg/s and elapsed ms from the start to the expected-th message (to now when the
   * run fell short), and start-up ms (to the first message).
   */
  result(): {
    steadyMsgsPerSec: number;
    totalMsgsPerSec: number;
    elapsedMs: number;
    firstMessageMs: number;
    steadyWindowMs: number;
    steadyWindowUs: [number, number];
  } {
    const ms = (a: bigint, b: bigint): number => Number(b - a) / 1e6;
    const window = this.toNs > 0n ? ms(this.fromNs, this.toNs) : 0;
    const elapsed = ms(this.startNs, this.lastNs > 0n ? this.lastNs : process.hrtime.bigint());
    return {
      // The window on the monotonic clock in µs, the clock of `node --cpu-prof`'s sample timestamps: a profile
      // of the whole process can be cut down to the steady phase.
      steadyWindowUs: [Number(this.fromNs / 1000n), Number(this.toNs / 1000n)],
      steadyMsgsPerSec: window > 0 ? Math.round(((this.toCount - this.fromCount) * 1000) / window) : 0,
      totalMsgsPerSec: elapsed > 0 ? Math.round((this.count * 1000) / elapsed) : 0,
      elapsedMs: Math.round(elapsed),
      firstMessageMs: this.firstNs > 0n ? Math.round(ms(this.startNs, this.firstNs) * 10) / 10 : -1,
      steadyWindowMs: Math.round(window * 10) / 10,
    };
  }
}

/**
 * The steady rate of several passes over the same backlog: the messages of every pass's steady window over the sum
 * of the windows, so start-up and drain of each pass stay out, and a short pass weighs as much as its window.
 */
export function pooledSteadyRate(meters: readonly SteadyMeter[]): { steadyMsgsPerSec: number; steadyWindowMs: number } {
  let messages = 0;
  let ns = 0;
  for (const m of meters) {
    const w = m.window();
    messages += w.messages;
    ns += w.ns;
  }
  return {
    steadyMsgsPerSec: ns > 0 ? Math.round((messages * 1e9) / ns) : 0,
    steadyWindowMs: Math.round(ns / 1e5) / 10,
  };
}
