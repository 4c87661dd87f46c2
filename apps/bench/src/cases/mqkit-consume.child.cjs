'use strict';
/**
 * mqkit's side of `npm run bench -- rocketmq`, in its own process: a fresh group reads the backlog from
 * CONSUME_FROM_FIRST_OFFSET with the settings RocketMQ's Java side uses (pullBatchSize 32,
 * consumeMessageBatchMaxSize 1, 20 consume threads) and a handler that only counts. Requires the built dist of
 * @mqkit/core and @mqkit/transport-rocketmq, so it measures the packages users get.
 *
 * Argument: one JSON object { namesrvAddr, topic, group, expected, threads, timeoutMs } (the case's from and to
 * are ignored: SteadyMeter derives the same marks from `expected`).
 * Prints "RESULT {json}" as PushConsumerBench does:
 * - steadyMsgsPerSec: messages between the 10 % and the 90 % mark / the time between them (SteadyMeter), so
 *   neither start-up nor the tail of the backlog (queues draining unevenly) is in it;
 * - totalMsgsPerSec: expected / start() to the expected-th message; firstMessageMs: start() to the first;
 * - peakRssKib (VmHWM).
 * With MQKIT_BENCH_CPU_PROF=<file> it also writes a V8 CPU profile of start() to the last message there (the
 * case's runner starts children with plain `node`, so the profiler is started from inside).
 */
const { cpuProfiler, meterReport } = require('./child-util.cjs');
const { SteadyMeter } = require('../../dist/report/steady-meter.js');
const { Consumer, createConsumerApp } = require('@mqkit/core');
const { rocketmqTransport } = require('@mqkit/transport-rocketmq');

async function main() {
  const settings = JSON.parse(process.argv[2]);
  const { expected } = settings;
  const meter = new SteadyMeter(expected);
  let finish;
  const done = new Promise((resolve) => (finish = resolve));

  class CountingHandler {
    handle() {
      meter.add(1);
      if (meter.count === expected) finish(true);
    }
  }
  Consumer({
    group: settings.group,
    topic: settings.topic,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    pullBatchSize: 32,
    consumeMessageBatchMaxSize: 1,
    consumeThreadMin: settings.threads,
    consumeThreadMax: settings.threads,
  })(CountingHandler);

  const app = await createConsumerApp({
    transport: rocketmqTransport({ nameServer: settings.namesrvAddr }),
    consumers: [CountingHandler],
  });
  const stopProfile = await cpuProfiler(process.env.MQKIT_BENCH_CPU_PROF);
  meter.begin();
  await app.start();
  const timer = setTimeout(() => finish(false), settings.timeoutMs);
  const ok = await done;
  clearTimeout(timer);
  await stopProfile();
  const result = { client: 'mqkit-push', ok, expected, threads: settings.threads, ...meterReport(meter) };
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
  await app.stop({ timeoutMs: 5_000 });
  process.exit(ok ? 0 : 1);
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ? error.stack : String(error)}\n`);
  process.exit(1);
});
