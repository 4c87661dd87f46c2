'use strict';
/**
 * mqkit's side of `npm run bench -- rocketmq`, in its own process: a fresh group reads the backlog from
 * CONSUME_FROM_FIRST_OFFSET with the settings RocketMQ's Java side uses (pullBatchSize 32,
 * consumeMessageBatchMaxSize 1, 20 consume threads) and a handler that only counts. Requires the built dist of
 * @mqkit/core and @mqkit/transport-rocketmq, so it measures the packages users get.
 *
 * Argument: one JSON object { namesrvAddr, topic, group, expected, threads, timeoutMs }.
 * Prints "RESULT {json}" as PushConsumerBench does: elapsedMs from start() to the expected-th message, msgsPerSec,
 * firstMessageMs, steadyMsgsPerSec (without the time to the first message) and peakRssKib (VmHWM).
 */
const { readFileSync } = require('node:fs');
const { Consumer, createConsumerApp } = require('@mqkit/core');
const { rocketmqTransport } = require('@mqkit/transport-rocketmq');

function peakRssKib() {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return match ? Number(match[1]) : -1;
}

async function main() {
  const settings = JSON.parse(process.argv[2]);
  let received = 0;
  let firstNs = 0n;
  let lastNs = 0n;
  let finish;
  const done = new Promise((resolve) => (finish = resolve));

  class CountingHandler {
    handle() {
      const count = ++received;
      if (count === 1) firstNs = process.hrtime.bigint();
      if (count === settings.expected) {
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
  const startNs = process.hrtime.bigint();
  await app.start();
  const timer = setTimeout(() => finish(false), settings.timeoutMs);
  const ok = await done;
  clearTimeout(timer);
  const endNs = ok ? lastNs : process.hrtime.bigint();
  const elapsedMs = Number(endNs - startNs) / 1e6;
  const steadyMs = firstNs ? Number(endNs - firstNs) / 1e6 : 0;
  const result = {
    client: 'mqkit-push',
    ok,
    received,
    expected: settings.expected,
    threads: settings.threads,
    elapsedMs: Math.round(elapsedMs),
    msgsPerSec: elapsedMs > 0 ? Math.round((received * 1000) / elapsedMs) : 0,
    firstMessageMs: firstNs ? Math.round(Number(firstNs - startNs) / 1e6) : -1,
    steadyMsgsPerSec: steadyMs > 0 ? Math.round(((received - 1) * 1000) / steadyMs) : 0,
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
