/**
 * The statistics every case reports the same way: a steady rate over the middle of a run, percentiles of a
 * sample, and whether repeated runs agree within 10 %.
 */

/** The share of a run the steady rate leaves out at each end: the rate runs from the 10 % to the 90 % message. */
export const STEADY_FROM = 0.1;
export const STEADY_TO = 0.9;

/**
 * The two message counts between which a run's steady rate is measured: the ceil(10 %)-th and the floor(90 %)-th
 * message of `expected`. Child programs (Node and Java) stamp the time when their count reaches each.
 */
export function steadyMarks(expected: number): { from: number; to: number } {
  const from = Math.max(1, Math.ceil(expected * STEADY_FROM));
  const to = Math.max(from + 1, Math.floor(expected * STEADY_TO));
  return { from, to };
}

/** Messages per second between two marks stamped at `fromNs` and `toNs` (hrtime or nanoTime, same clock). */
export function steadyRate(marks: { from: number; to: number }, fromNs: number, toNs: number): number {
  const seconds = (toNs - fromNs) / 1e9;
  return seconds > 0 ? (marks.to - marks.from) / seconds : 0;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The p-th percentile (0 < p <= 100) of an ascending array: the smallest value with at least p % of the sample at or below it. */
export function percentile(sortedAscending: ArrayLike<number>, p: number): number {
  const n = sortedAscending.length;
  if (n === 0) return Number.NaN;
  // The epsilon keeps binary rounding (0.999 * 1000 = 999.0000000000001) from stepping one rank up.
  const rank = Math.min(n, Math.max(1, Math.ceil((p / 100) * n - 1e-9)));
  return sortedAscending[rank - 1]!;
}

/** How far repeated runs of one figure spread: (max - min) / median, and whether that is within 10 %. */
export interface Spread {
  readonly runs: number;
  readonly median: number;
  readonly spread: number;
  readonly within10pct: boolean;
}

export function spreadOf(values: readonly number[]): Spread {
  const m = median(values);
  const spread = values.length > 1 && m > 0 ? (Math.max(...values) - Math.min(...values)) / m : 0;
  // One run says nothing about repeatability.
  return { runs: values.length, median: m, spread: round(spread, 3), within10pct: values.length > 1 && spread <= 0.1 };
}

/** A human line for a spread: "median 1,234 (3 runs, spread 4.1 %, within 10 %)". */
export function describeSpread(label: string, s: Spread, unit: string): string {
  return `${label}: median ${Math.round(s.median).toLocaleString('en-US')} ${unit} (${s.runs} runs, spread ${(s.spread * 100).toFixed(1)} %, ${s.within10pct ? 'within 10 %' : 'NOT within 10 %'})`;
}

export function round(value: number, digits = 0): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
