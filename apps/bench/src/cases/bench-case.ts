import type { ResultsFile } from '../report/bench-results';

/**
 * Where a case whose last line must stay short puts the figures beyond it (e.g. chaos: per scenario and seed): main
 * leaves this key out of the line (JSON has no symbol keys) and writes its value as the results file's `detail`.
 */
export const RESULT_DETAIL: unique symbol = Symbol('mqkit.bench.resultDetail');

/** What a case's run resolves with: its last line, and optionally what the results file keeps beside it. */
export type CaseResult = Record<string, unknown> & { readonly [RESULT_DETAIL]?: Record<string, unknown> };

/**
 * One benchmark case of `npm run bench -- <case>`. A case prints its settings (human lines on stderr, the first
 * starting with `settings:`) and returns its result object, which main prints as the last line on stdout, compact
 * JSON, and writes to the case's results file.
 */
export interface BenchCase {
  readonly name: string;
  /** Embedded cases run when no case is named; cases needing external services (a RocketMQ cluster) do not. */
  readonly embedded: boolean;
  /** Whether `npm run bench -- all` runs it (default: embedded). docs/benchmarks.md's table has a row per such case. */
  readonly inAll?: boolean;
  /** Whether a run writes apps/bench/results/<name>.json (default true; compare and one-off tools do not). */
  readonly writesResults?: boolean;
  readonly description: string;
  run(args: readonly string[]): Promise<CaseResult>;
  /**
   * For a run that measures only part of the case (one scenario, one client): a name, and the results go to
   * results/trials/<case>-<name>.json as with MQKIT_BENCH_TRIAL, so the tables keep reading the full run's file.
   */
  trialName?(args: readonly string[]): string | undefined;
  /**
   * Rewrites the case's own table in the docs from its results file (chaos: docs/reliability.md), after a run that
   * wrote the case's results file and on `npm run bench -- readme`; returns what it did, for the log.
   */
  refreshDocs?(): string;
  /**
   * The case's row of the table in docs/benchmarks.md, written from its results file: what is measured, the
   * result (figures read from `file.result`, never typed in) and the target with whether it was met.
   */
  tableRow?(file: ResultsFile): TableRow;
}

export interface TableRow {
  readonly measured: string;
  readonly result: string;
  readonly target: string;
}
