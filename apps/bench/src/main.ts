import 'reflect-metadata';
import { RESULT_DETAIL } from './cases/bench-case';
import { CASES } from './cases/index';
import { settingsLines } from './cases/bench-util';
import { commandLine, describeMachine, writeResults } from './report/bench-results';
import { refreshBenchmarksTable } from './report/benchmarks-table';
import { describeRerun } from './report/rerun';

/**
 * `npm run bench -- [case] [flags]`: with no case, every embedded case; `all`, every case that has a row in the
 * table of docs/benchmarks.md (embedded and RocketMQ ones), then that table is rewritten from the results files;
 * `readme` rewrites the tables alone (that one, and a case's own, such as chaos's in docs/reliability.md; the name is
 * older than the guides). Each case's result is printed as its last
 * JSON line and written to apps/bench/results/<case>.json with the machine's description. Exits 0 whenever it measured, target met or not: a target is a figure to
 * report, not a test.
 */
async function main(argv: readonly string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (name === 'readme') {
    process.stderr.write(`docs/benchmarks.md table rewritten from ${refreshBenchmarksTable().join(', ')}\n`);
    for (const c of CASES) if (c.refreshDocs) process.stderr.write(`${c.refreshDocs()}\n`);
    return;
  }
  const all = name === 'all';
  const named = name && !name.startsWith('--') && !all ? CASES.find((c) => c.name === name) : undefined;
  if (name && !name.startsWith('--') && !all && !named) {
    process.stderr.write(`unknown case ${name}; known: all, readme, ${CASES.map((c) => c.name).join(', ')}\n`);
    process.exitCode = 2;
    return;
  }
  const selected = named ? [named] : all ? CASES.filter((c) => c.inAll ?? c.embedded) : CASES.filter((c) => c.embedded);
  const args = named || all ? rest : argv;
  for (const c of selected) {
    process.stderr.write(`# ${c.name}: ${c.description}\n`);
    settingsLines.length = 0;
    const started = Date.now();
    const { [RESULT_DETAIL]: detail, ...result } = await c.run(args);
    const line = { case: c.name, ...result };
    process.stdout.write(`${JSON.stringify(line)}\n`);
    // compare runs cases on two trees for a ratio: those runs are not the case's results.
    if ((c.writesResults ?? true) && !process.env.MQKIT_BENCH_NO_RESULTS) {
      const trial = process.env.MQKIT_BENCH_TRIAL ?? c.trialName?.(args);
      const command = commandLine(c.name, args);
      const written = writeResults(
        {
          case: c.name,
          command,
          finishedAt: new Date().toISOString(),
          durationSec: Math.round((Date.now() - started) / 1000),
          machine: describeMachine(),
          settings: [...settingsLines],
          result: line,
          ...(detail ? { detail } : {}),
        },
        trial,
      );
      process.stderr.write(`# results: ${written.path}\n`);
      for (const text of written.rerun ? describeRerun(written.rerun) : []) process.stderr.write(`# ${text}\n`);
      if (trial === undefined && c.refreshDocs) process.stderr.write(`# ${c.refreshDocs()}\n`);
    }
  }
  if (all) process.stderr.write(`docs/benchmarks.md table rewritten from ${refreshBenchmarksTable().join(', ')}\n`);
}

main(process.argv.slice(2)).then(
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(1);
  },
);
