'use strict';
/**
 * mqkit's side of `npm run bench -- produce`, in its own process, sending with the built dist of @mqkit/core and
 * @mqkit/transport-rocketmq (the packages users get). Mirrors ProducerBench:
 * - async: at most maxInFlight sends unanswered (a new send starts when one settles);
 * - sync: one sender awaiting each send.
 * Every message is a new object with the same `size`-byte body; default producer options (sendMsgTimeout 3 s,
 * 2 retries, no fault tolerance), as DefaultMQProducer's defaults.
 *
 * Argument: one JSON object { namesrvAddr, topic, count, size, mode: 'async'|'sync', maxInFlight }.
 * Prints "RESULT {json}" with sent (acknowledged SEND_OK), failed, elapsedMs (first send to last answer),
 * totalMsgsPerSec = sent / elapsedMs, steadyMsgsPerSec between the 10 % and the 90 % acknowledged send
 * (SteadyMeter, the marks the case's steadyMarks gives: the pipeline filling up and the tail draining stay out), and
 * peakRssKib (VmHWM).
 */
const { peakRssKib } = require('./child-util.cjs');
const { SteadyMeter } = require('../../dist/report/steady-meter.js');
const { createProducer } = require('@mqkit/core');
const { rocketmqTransport } = require('@mqkit/transport-rocketmq');

async function main() {
  const { namesrvAddr, topic, count, size, mode, maxInFlight } = JSON.parse(process.argv[2]);
  const producer = await createProducer({
    transport: rocketmqTransport({ nameServer: namesrvAddr }),
    group: `mqkit_bench_producer_${process.pid}`,
  });
  const body = Buffer.alloc(size, 0x78);
  let failed = 0;
  let firstError;
  // Counts acknowledged sends; its clock starts at the first send.
  let meter;
  const ok = (result) => {
    if (result.status !== 'SEND_OK') return failed++;
    meter.add(1);
  };
  const fail = (error) => {
    failed++;
    if (!firstError) firstError = String(error?.message ? error.message : error);
  };
  meter = new SteadyMeter(count);
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
          producer
            .send({ topic, body })
            .then(ok, fail)
            .then(() => {
              settled++;
              if (settled === count) resolve();
              else pump();
            });
        }
      };
      pump();
    });
  }
  const m = meter.result();
  const result = {
    client: 'mqkit-producer',
    mode,
    count,
    size,
    maxInFlight: mode === 'async' ? maxInFlight : 1,
    sent: meter.count,
    failed,
    elapsedMs: m.elapsedMs,
    totalMsgsPerSec: m.totalMsgsPerSec,
    steadyMs: m.steadyWindowMs > 0 ? Math.round(m.steadyWindowMs) : -1,
    steadyMsgsPerSec: m.steadyMsgsPerSec,
    peakRssKib: peakRssKib(),
  };
  if (firstError) result.firstError = firstError;
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
  await producer.stop();
  process.exit(failed === 0 ? 0 : 1);
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ? error.stack : String(error)}\n`);
  process.exit(1);
});
