/**
 * One benchmark case of `npm run bench -- <case>`. A case prints its settings (human lines on stderr) and
 * returns its result object, which main prints as the last line on stdout, compact JSON.
 */
export interface BenchCase {
  readonly name: string;
  /** Embedded cases run when no case is named; cases needing external services (a RocketMQ cluster) do not. */
  readonly embedded: boolean;
  readonly description: string;
  run(args: readonly string[]): Promise<Record<string, unknown>>;
}
