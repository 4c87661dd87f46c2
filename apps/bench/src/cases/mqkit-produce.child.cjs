'use strict';
/**
 * mqkit's side of `npm run bench -- produce`, in its own process, sending with the built dist of @mqkit/core and
 * @mqkit/transport-rocketmq (the packages users get). Mirrors ProducerBench:
 * - async: at most maxInFlight sends unanswered (a new send starts when one settles);
 * - sync: one sender awaiting each send.
 * Every message is a new object with the same `size`-byte body; default producer options (sendMsgTimeout 3 s,
 * 2 retries, no fault tolerance), as DefaultMQProducer's defaults.
 *
 * Argument: one JSON object { namesrvAddr, topic, count, size, mode: 'async'|'sync', maxInFlight, from?, to? }.
 * Prints "RESULT {json}" with sent (acknowledged SEND_OK), failed, elapsedMs (first send to last answer),
 * totalMsgsPerSec = sent / elapsedMs, steadyMsgsPerSec = (to - from) / the time between the from-th and the to-th
 * acknowledged send (the case's steadyMarks: the pipeline filling up and the tail draining stay out of it), and
 * peakRssKib (VmHWM).
 */
const { peakRssKib } = require('./child-util.cjs');
const { createProducer } = require('@mqkit/core');
const { rocketmqTransport } = require('@mqkit/transport-rocketmq');


async function main() {
  const { namesrvAddr, topic, count, size, mode, maxInFlight, from = 0, to = 0 } = JSON.parse(process.argv[2]);
  const producer = await createProducer({ transport: rocketmqTransport({ nameServer: namesrvAddr }), group: `mqkit_bench_producer_${process.pid}` });
  const body = Buffer.alloc(size, 0x78);
  let sent = 0;
  let failed = 0;
  let firstError;
  let fromNs = 0n;
  let toNs = 0n;
  const ok = (result) => {
    if (result.status !== 'SEND_OK') return failed++;
    sent++;
    if (sent === from) fromNs = process.hrtime.bigint();
    if (sent === to) toNs = process.hrtime.bigint();
  };
  const fail = (error) => {
    failed++;
    if (!firstError) firstError = String(error && error.message ? error.message : error);
  };
  const startNs = process.hrtime.bigint();
  if (mode === 'sync') {
    for (let i = 0; i < count; i++) {
      try {
        ok(await producer.send({ topic, body }));
      } catch (error) {
        fail(error);
      }
    }
  } else {
    await new Promise((resolve) => {
      let started = 0;
      let settled = 0;
      const pump = () => {
        while (started - settled < maxInFlight && started < count) {
          started++;
          producer.send({ topic, body }).then(ok, fail).then(() => {
            settled++;
            if (settled === count) resolve();
            else pump();
          });
        }
      };
      pump();
    });
  }
  const elapsedMs = Number(process.hrtime.bigint() - startNs) / 1e6;
  const steadyMs = fromNs && toNs ? Number(toNs - fromNs) / 1e6 : 0;
  const result = {
    client: 'mqkit-producer',
    mode,
    count,
    size,
    maxInFlight: mode === 'async' ? maxInFlight : 1,
    sent,
    failed,
    elapsedMs: Math.round(elapsedMs),
    totalMsgsPerSec: Math.round((sent * 1000) / elapsedMs),
    steadyMs: steadyMs > 0 ? Math.round(steadyMs) : -1,
    steadyMsgsPerSec: steadyMs > 0 ? Math.round(((to - from) * 1000) / steadyMs) : 0,
    peakRssKib: peakRssKib(),
  };
  if (firstError) result.firstError = firstError;
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
  await producer.stop();
  process.exit(failed === 0 ? 0 : 1);
}

main().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : String(error)}\n`);
  process.exit(1);
});
