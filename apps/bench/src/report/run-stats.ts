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

/**
 * How repeated runs of one figure agree.
 *
 * - `spread`: (max - min) / median of the single runs.
 * - `halves`: the medians of the odd-numbered and of the even-numbered runs. The runs are interleaved with the other
 *   variants', so each half is what a rerun with half the rounds would have reported, under the same drift of the
 *   machine; `rerunDifference` is how far apart the two are, over the median of all runs.
 * - `within10pct`: the two halves agree within 10 %, i.e. a rerun of the case repeats the figure (which is the
 *   median of all the runs, steadier than either half) within 10 %. Fewer than 2 runs never count.
 */
export interface Spread {
  readonly runs: number;
  readonly median: number;
  readonly spread: number;
  readonly halves: readonly [number, number];
  readonly rerunDifference: number;
  readonly within10pct: boolean;
}

export function spreadOf(values: readonly number[]): Spread {
  const m = median(values);
  const spread = values.length > 1 && m > 0 ? (Math.max(...values) - Math.min(...values)) / m : 0;
  const halves = [median(values.filter((_, i) => i % 2 === 0)), median(values.filter((_, i) => i % 2 === 1))] as const;
  const rerunDifference = values.length > 1 && m > 0 ? Math.abs(halves[0] - halves[1]) / m : 0;
  // One run says nothing about repeatability.
  // Halves keep 3 significant digits below 100 (an idle CPU of 0.53 % must not print as 0.5).
  const keep = (h: number): number =>
    Math.abs(h) >= 100 || !Number.isFinite(h) ? round(h, 1) : Number(h.toPrecision(3));
  return {
    runs: values.length,
    median: m,
    spread: round(spread, 3),
    halves: [keep(halves[0]), keep(halves[1])],
    rerunDifference: round(rerunDifference, 3),
    within10pct: values.length > 1 && rerunDifference <= 0.1,
  };
}

/** A human line for a spread: "median 1,234 msg/s (6 runs, single runs spread 14.1 %; halves 1,200 and 1,250, 4.1 % apart: a rerun repeats within 10 %)". */
export function describeSpread(label: string, s: Spread, unit: string): string {
  const n = (x: number): string => Math.round(x).toLocaleString('en-US');
  return (
    `${label}: median ${n(s.median)} ${unit} (${s.runs} runs, single runs spread ${(s.spread * 100).toFixed(1)} %; ` +
    `medians of the odd and the even runs ${n(s.halves[0])} and ${n(s.halves[1])}, ${(s.rerunDifference * 100).toFixed(1)} % apart: ` +
    `${s.within10pct ? 'a rerun repeats within 10 %' : 'a rerun does NOT repeat within 10 %'})`
  );
}

/** A short form for a table cell: "spread 12.3 %, halves 2.1 % apart" (results files older than `halves`: the spread only). */
export function shortSpread(s: Partial<Spread> | undefined): string {
  if (!s || s.spread === undefined) return '?';
  const halves = s.rerunDifference !== undefined ? `, halves ${(s.rerunDifference * 100).toFixed(1)} % apart` : '';
  return `spread ${(s.spread * 100).toFixed(1)} %${halves}`;
}

export function round(value: number, digits = 0): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
