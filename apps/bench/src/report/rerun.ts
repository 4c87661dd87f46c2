import type { ResultsFile } from './bench-results';
import type { Spread } from './run-stats';

/**
 * A rerun, measured rather than estimated. Within one run, a figure's two halves (run-stats.ts) estimate whether a
 * rerun would repeat it; with 3 runs a half is one run or the mean of two, so one run that stands out decides it.
 * When a run replaces a results file written with the same settings on the same machine, the two files are a rerun
 * of each other: this compares every figure both track (each `Spread` in the result, by its median) and says how
 * far apart they are.
 */

export interface RerunFigure {
  readonly before: number;
  readonly after: number;
  /** |after - before| / before. */
  readonly difference: number;
  readonly within10pct: boolean;
}

export interface Rerun {
  /** The replaced run's finishedAt. */
  readonly against: string;
  /** Where the replaced file was kept, relative to apps/bench/results. */
  readonly keptAs: string;
  /** Same command, settings and machine: the two runs measured the same thing. */
  readonly comparable: boolean;
  /** When not comparable: what differs (the command, a settings line, a machine field). */
  readonly differences?: readonly string[];
  /** Machine fields the replaced file did not record (it predates them): the two runs may still have run on different hardware. */
  readonly unrecorded?: readonly string[];
  /** Only when comparable: every figure both runs track, by its path in the result. */
  readonly figures?: Readonly<Record<string, RerunFigure>>;
  readonly within?: number;
  readonly total?: number;
}

const isSpread = (value: unknown): value is Spread =>
  typeof value === 'object' &&
  value !== null &&
  'halves' in value &&
  typeof (value as { median?: unknown }).median === 'number';

/** The figures a result tracks the repeatability of: each Spread's median, by its dotted path ("rates.1000.mqkitP99Spread"). */
export function trackedFigures(result: Readonly<Record<string, unknown>>): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (value: unknown, path: string): void => {
    if (isSpread(value)) {
      out.set(path, value.median);
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
    for (const [key, child] of Object.entries(value)) walk(child, path === '' ? key : `${path}.${key}`);
  };
  walk(result, '');
  return out;
}

/** What makes two results files measure different things: their command, settings lines or machine. */
function differencesOf(previous: ResultsFile, current: ResultsFile): string[] {
  const out: string[] = [];
  if (previous.command !== current.command) out.push(`command: ${previous.command} -> ${current.command}`);
  const before = new Set(previous.settings);
  const after = new Set(current.settings);
  for (const line of previous.settings) if (!after.has(line)) out.push(`settings line gone: ${line}`);
  for (const line of current.settings) if (!before.has(line)) out.push(`settings line new: ${line}`);
  for (const key of Object.keys(current.machine) as (keyof ResultsFile['machine'])[]) {
    if (previous.machine[key] !== undefined && previous.machine[key] !== current.machine[key])
      out.push(`machine ${key}: ${previous.machine[key]} -> ${current.machine[key]}`);
  }
  return out;
}

/** Machine fields the current run records and the replaced one did not. */
function unrecordedOf(previous: ResultsFile, current: ResultsFile): string[] {
  return (Object.keys(current.machine) as (keyof ResultsFile['machine'])[]).filter(
    (key) => previous.machine[key] === undefined,
  );
}

export function compareRerun(previous: ResultsFile, current: ResultsFile, keptAs: string): Rerun {
  const differences = differencesOf(previous, current);
  if (previous.case !== current.case) differences.unshift(`case: ${previous.case} -> ${current.case}`);
  if (differences.length > 0) return { against: previous.finishedAt, keptAs, comparable: false, differences };
  const before = trackedFigures(previous.result);
  const figures: Record<string, RerunFigure> = {};
  for (const [path, after] of trackedFigures(current.result)) {
    const was = before.get(path);
    if (was === undefined || !(was > 0)) continue;
    const difference = Math.round((Math.abs(after - was) / was) * 1000) / 1000;
    figures[path] = { before: was, after, difference, within10pct: difference <= 0.1 };
  }
  const values = Object.values(figures);
  const unrecorded = unrecordedOf(previous, current);
  return {
    against: previous.finishedAt,
    keptAs,
    comparable: true,
    ...(unrecorded.length > 0 ? { unrecorded } : {}),
    figures,
    within: values.filter((f) => f.within10pct).length,
    total: values.length,
  };
}

/** Human lines for a rerun: one summary, then one line per figure that moved by more than 10 %. */
export function describeRerun(rerun: Rerun): string[] {
  if (!rerun.comparable) {
    return [`not a rerun of the run of ${rerun.against} (kept as ${rerun.keptAs}): ${rerun.differences!.join('; ')}`];
  }
  const caveat = rerun.unrecorded
    ? ` (that run did not record the machine's ${rerun.unrecorded.join(', ')}: it may have run on other hardware)`
    : '';
  const lines = [
    `rerun of the run of ${rerun.against} (kept as ${rerun.keptAs}): ${rerun.within} of ${rerun.total} tracked figures within 10 %${caveat}`,
  ];
  for (const [path, f] of Object.entries(rerun.figures!)) {
    if (!f.within10pct) lines.push(`  ${path}: ${f.before} -> ${f.after} (${(f.difference * 100).toFixed(1)} % apart)`);
  }
  return lines;
}

/** A benchmarks-table cell's note: "rerun of 2026-12-02 08:28: 9 of 10 figures within 10 %" ('' without a comparable rerun). */
export function rerunNote(rerun: Rerun | undefined): string {
  if (!rerun?.comparable || !rerun.total) return '';
  const caveat = rerun.unrecorded ? ` (its hardware not recorded)` : '';
  return `; rerun of the run of ${rerun.against.slice(0, 16).replace('T', ' ')}${caveat}: ${rerun.within} of ${rerun.total} figures within 10 %`;
}
