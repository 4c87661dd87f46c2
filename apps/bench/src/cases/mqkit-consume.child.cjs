'use strict';
/**
 * mqkit's side of `npm run bench -- rocketmq`, in its own process: a fresh group reads the backlog from
 * CONSUME_FROM_FIRST_OFFSET with the settings RocketMQ's Java side uses (pullBatchSize 32,
 * consumeMessageBatchMaxSize 1, 20 consume threads) and a handler that only counts. Requires the built dist of
 * @mqkit/core and @mqkit/transport-rocketmq, so it measures the packages users get.
 *
 * Argument: one JSON object { namesrvAddr, topic, group, expected, from, to, threads, timeoutMs }.
 * Prints "RESULT {json}" as PushConsumerBench does:
 * - steadyMsgsPerSec: (to - from) / the time between the from-th and the to-th message (the case's steadyMarks),
 *   so neither start-up nor the tail of the backlog (queues draining unevenly) is in it;
 * - totalMsgsPerSec: expected / start() to the expected-th message; firstMessageMs: start() to the first;
 * - peakRssKib (VmHWM).
 * With MQKIT_BENCH_CPU_PROF=<file> it also writes a V8 CPU profile of start() to the last message there (the
 * case's runner starts children with plain `node`, so the profiler is started from inside).
 */
const { peakRssKib, cpuProfiler } = require('./child-util.cjs');
const { Consumer, createConsumerApp } = require('@mqkit/core');
const { rocketmqTransport } = require('@mqkit/transport-rocketmq');



const ms = (a, b) => Number(b - a) / 1e6;

async function main() {
  const settings = JSON.parse(process.argv[2]);
  const { expected, from, to } = settings;
  let received = 0;
  let firstNs = 0n;
  let fromNs = 0n;
  let toNs = 0n;
  let lastNs = 0n;
  let finish;
  const done = new Promise((resolve) => (finish = resolve));

  class CountingHandler {
    handle() {
      const count = ++received;
      if (count === 1) firstNs = process.hrtime.bigint();
      if (count === from) fromNs = process.hrtime.bigint();
      if (count === to) toNs = process.hrtime.bigint();
      if (count === expected) {
        lastNs = process.hrtime.bigint();
        finish(true);
      }
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

  const app = await createConsumerApp({ transport: rocketmqTransport({ nameServer: settings.namesrvAddr }), consumers: [CountingHandler] });
  const stopProfile = await cpuProfiler(process.env.MQKIT_BENCH_CPU_PROF);
  const startNs = process.hrtime.bigint();
  await app.start();
  const timer = setTimeout(() => finish(false), settings.timeoutMs);
  const ok = await done;
  clearTimeout(timer);
  await stopProfile();
  const endNs = ok ? lastNs : process.hrtime.bigint();
  const elapsedMs = ms(startNs, endNs);
  const steadyMs = fromNs && toNs ? ms(fromNs, toNs) : 0;
  const result = {
    client: 'mqkit-push',
    ok,
    received,
    expected,
    threads: settings.threads,
    elapsedMs: Math.round(elapsedMs),
    totalMsgsPerSec: elapsedMs > 0 ? Math.round((received * 1000) / elapsedMs) : 0,
    firstMessageMs: firstNs ? Math.round(ms(startNs, firstNs)) : -1,
    steadyMs: steadyMs > 0 ? Math.round(steadyMs) : -1,
    steadyMsgsPerSec: steadyMs > 0 ? Math.round(((to - from) * 1000) / steadyMs) : 0,
    peakRssKib: peakRssKib(),
  };
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
  await app.stop({ timeoutMs: 5_000 });
  process.exit(ok ? 0 : 1);
}

main().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : String(error)}\n`);
  process.exit(1);
});
