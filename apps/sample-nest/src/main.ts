import 'reflect-metadata';
import { ConfigurationError } from '@mqkit/core';
import { ProgressLine } from './progress-line';
import { runSampleNest } from './run-sample-nest';
import { UsageError, parseSampleNestArgs, type SampleNestOptions } from './sample-nest-options';
import type { SampleNestSummary } from './summary.reporter';

/**
 * `npm run start:nest`: the Nest sample on the embedded broker. Progress on stderr, exactly one JSON summary line
 * on stdout; exit 0 only when every order shipped. With `--serve` it consumes until SIGTERM/SIGINT, then drains.
 */
async function main(): Promise<number | undefined> {
  let options: SampleNestOptions;
  try {
    options = parseSampleNestArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return 2;
  }
  process.stderr.write(
    `mqkit sample-nest: ${options.messages} orders through a NestJS app (billing -> shipping) on ${options.namesrv ? `RocketMQ at ${options.namesrv}` : 'the embedded broker'}${options.serve ? ', serving until SIGTERM' : ''}\n`,
  );
  const line = new ProgressLine();
  let summary: SampleNestSummary | undefined;
  try {
    summary = await runSampleNest(options, options.progress ? (text) => line.update(text) : () => undefined);
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    process.stderr.write(`${error.message}\n`); // e.g. a malformed --namesrv
    return 2;
  }
  line.done();
  if (!summary) return undefined; // serving: the process ends when Nest's shutdown hook re-raises the signal
  return summary.lost === 0 ? 0 : 1;
}

main().then(
  (code) => {
    if (code !== undefined) process.exit(code);
  },
  (error: unknown) => {
    process.stderr.write(
      `${error instanceof UsageError ? error.message : ((error as Error)?.stack ?? String(error))}\n`,
    );
    process.exit(1);
  },
);
