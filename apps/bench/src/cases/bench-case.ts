import type { ResultsFile } from '../report/bench-results';

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
  run(args: readonly string[]): Promise<Record<string, unknown>>;
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
