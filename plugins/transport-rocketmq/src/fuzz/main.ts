import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { parseFuzzArgs, type FuzzCliArgs } from './fuzz-cli-args';
import type { FuzzTarget } from './fuzz-corpus';
import { fuzzInput, runFuzz, type FuzzFailure, type FuzzReport } from './fuzz-runner';

/*
 * `npm run fuzz -- --count 1000000 --seed N`: runs the decoder fuzzer in worker threads watched by this thread.
 * A worker that stops making progress on one input for --watchdog-ms is a hang: it is killed and the input is
 * reported like any failure. Exit code 0 when nothing failed, 1 otherwise. Each failure prints its seed, index and
 * base64 input, ready for src/fuzz/regression-cases.ts.
 */

interface WorkerJob {
  readonly seed: number;
  readonly start: number;
  readonly count: number;
  readonly targets: readonly FuzzTarget[];
  readonly progress: SharedArrayBuffer;
}

if (isMainThread) {
  void main().then((code) => {
    process.exitCode = code;
  });
} else {
  const job = workerData as WorkerJob;
  const progress = new Int32Array(job.progress);
  const report = runFuzz({
    seed: job.seed,
    start: job.start,
    count: job.count,
    targets: job.targets,
    onInput: (index) => {
      Atomics.store(progress, 0, index - job.start + 1);
    },
  });
  parentPort!.postMessage(report);
}

async function main(): Promise<number> {
  let args: FuzzCliArgs;
  try {
    args = parseFuzzArgs(process.argv.slice(2), Date.now() % 0x7fffffff);
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  console.error(
    `fuzz: seed ${args.seed}, inputs ${args.start}..${args.start + args.count - 1}, targets ${args.targets.join(',')}, ${args.workers} worker(s)`,
  );
  const share = Math.ceil(args.count / args.workers);
  const jobs: Array<Promise<FuzzReport>> = [];
  for (let w = 0; w < args.workers; w++) {
    const start = args.start + w * share;
    const count = Math.min(share, args.start + args.count - start);
    if (count > 0)
      jobs.push(
        runWorker(
          { seed: args.seed, start, count, targets: args.targets, progress: new SharedArrayBuffer(4) },
          args.watchdogMs,
        ),
      );
  }
  const reports = await Promise.all(jobs);
  const failures = reports.flatMap((r) => r.failures);
  const accepted = reports.reduce((n, r) => n + r.accepted, 0);
  const typedErrors = reports.reduce((n, r) => n + r.typedErrors, 0);
  const elapsedMs = Math.max(...reports.map((r) => r.elapsedMs));
  const done = reports.reduce((n, r) => n + r.count, 0);
  const summary = {
    seed: args.seed,
    count: done,
    accepted,
    typedErrors,
    failures: failures.length,
    inputsPerSecond: Math.round((done / elapsedMs) * 1000),
    elapsedMs: Math.round(elapsedMs),
    maxInputMs: Number(Math.max(...reports.map((r) => r.maxInputMs)).toFixed(2)),
  };
  for (const failure of failures) console.log(JSON.stringify(failure));
  console.log(JSON.stringify(summary));
  return failures.length === 0 ? 0 : 1;
}

/** Runs one slice in a worker; kills it and reports a hang when its progress counter stalls. */
function runWorker(job: WorkerJob, watchdogMs: number): Promise<FuzzReport> {
  return new Promise<FuzzReport>((resolve) => {
    const worker = new Worker(__filename, { workerData: job });
    const progress = new Int32Array(job.progress);
    let lastDone = -1;
    let lastChange = Date.now();
    const watchdog = setInterval(
      () => {
        const done = Atomics.load(progress, 0);
        if (done !== lastDone) {
          lastDone = done;
          lastChange = Date.now();
          return;
        }
        if (Date.now() - lastChange < watchdogMs) return;
        clearInterval(watchdog);
        void worker.terminate();
        const index = job.start + done;
        const { target, input } = fuzzInput(job.seed, index, job.targets);
        const hang: FuzzFailure = {
          seed: job.seed,
          index,
          target,
          input: input.toString('base64'),
          kind: 'hang',
          error: `no progress for ${watchdogMs} ms`,
        };
        resolve({
          seed: job.seed,
          count: done,
          accepted: 0,
          typedErrors: 0,
          failures: [hang],
          elapsedMs: Date.now() - lastChange,
          maxInputMs: watchdogMs,
        });
      },
      Math.min(1000, watchdogMs / 4),
    );
    worker.once('message', (report: FuzzReport) => {
      clearInterval(watchdog);
      resolve(report);
    });
    worker.once('error', (error) => {
      clearInterval(watchdog);
      const index = job.start + Atomics.load(progress, 0);
      const { target, input } = fuzzInput(job.seed, index, job.targets);
      resolve({
        seed: job.seed,
        count: 0,
        accepted: 0,
        typedErrors: 0,
        failures: [
          {
            seed: job.seed,
            index,
            target,
            input: input.toString('base64'),
            kind: 'untyped-error',
            error: `worker died: ${error.message}`,
          },
        ],
        elapsedMs: 1,
        maxInputMs: 0,
      });
    });
  });
}
