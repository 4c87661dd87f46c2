import 'reflect-metadata';
import { ProgressLine } from './progress';
import { runSample } from './run-sample';
import { UsageError, parseSampleArgs, type SampleOptions } from './sample-options';

/** `npm start`: progress on stderr, exactly one summary line on stdout; exit 0 only when nothing was lost. */
async function main(): Promise<number> {
  let options: SampleOptions;
  try {
    options = parseSampleArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return 2;
  }
  const progress = new ProgressLine();
  process.stderr.write(
    `mqkit sample: ${options.messages} messages of ${options.size} B to ${options.instances} consumer instances on ${options.namesrv ? `RocketMQ at ${options.namesrv}` : 'the embedded broker'}; one instance joins at 1/3, one leaves at 2/3\n`,
  );
  const summary = await runSample(options, options.progress ? (line) => progress.update(line) : undefined);
  progress.done();
  process.stdout.write(`${JSON.stringify(summary)}\n`);
  return summary.lost === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `${error instanceof UsageError ? error.message : ((error as Error)?.stack ?? String(error))}\n`,
    );
    process.exit(1);
  },
);
