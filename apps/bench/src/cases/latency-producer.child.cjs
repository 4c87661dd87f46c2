'use strict';
/**
 * The sender of `npm run bench -- latency`, in its own process, the same one for both consumers (mqkit's producer
 * from the built dist). Paced: every timer tick (about 1 ms) it computes how many messages are due from the
 * elapsed time (rate x elapsed) and sends those not sent yet, the ones of one tick as one sendBatch of at most
 * batchMax (a single send when one is due), with at most maxInFlight requests unanswered; only while that cap
 * holds messages back do answers send more before the next tick. A producer that falls
 * behind does not make up past the end of the window: it reports what it achieved (sentPerSec), not the target.
 *
 * Each message carries user properties: mqkitT, the send time in epoch microseconds, taken right before the
 * send call (performance.timeOrigin + performance.now(): wall clock at process start plus a monotonic offset, see
 * mqkit-latency.child.cjs); mqkitPhase; mqkitWarm on messages of the first warmupSec, which consumers count but
 * leave out of the statistics (route lookup, connection set-up, JIT on every side).
 *
 * Argument: one JSON object { namesrvAddr, topic, phase, rate, seconds, warmupSec, size, batchMax, maxInFlight }.
 * Prints "RESULT {json}": sent, failed, sentPerSec (sent / seconds), steadySentPerSec (after the warm-up),
 * maxBehindMs (the most the sender lagged its schedule), requests.
 */
const { performance } = require('node:perf_hooks');
const { createProducer } = require('@mqkit/core');
const { rocketmqTransport } = require('@mqkit/transport-rocketmq');

async function main() {
  const s = JSON.parse(process.argv[2]);
  const producer = await createProducer({
    transport: rocketmqTransport({ nameServer: s.namesrvAddr }),
    group: `mqkit_latency_producer_${process.pid}`,
  });
  const body = Buffer.alloc(s.size, 0x6c);
  const phase = String(s.phase);
  const message = (stampUs, warm) => ({
    topic: s.topic,
    body,
    properties: warm ? { mqkitT: stampUs, mqkitPhase: phase, mqkitWarm: '1' } : { mqkitT: stampUs, mqkitPhase: phase },
  });
  // One untimed send first, so the route lookup and the connection are not paid inside the paced window.
  await producer.send(message(String(Math.round((performance.timeOrigin + performance.now()) * 1000)), true));

  const durationMs = s.seconds * 1000;
  const warmupMs = s.warmupSec * 1000;
  const total = Math.floor(s.rate * s.seconds);
  let issued = 0;
  let sent = 1;
  let steadySent = 0;
  let failed = 0;
  let firstError;
  let inFlight = 0;
  let requests = 0;
  let maxBehind = 0;
  let closing = false;
  let finish;
  const finished = new Promise((resolve) => (finish = resolve));
  const t0 = performance.now();
  const dueNow = () => Math.min(total, Math.floor(((performance.now() - t0) * s.rate) / 1000));

  // A tick stopped by the in-flight cap with messages due: answers then pump until the backlog is out.
  let capped = false;
  const pump = () => {
    let due = closing ? issued : dueNow();
    while (issued < due && inFlight < s.maxInFlight) {
      const now = performance.now();
      const warm = now - t0 < warmupMs;
      const n = Math.min(s.batchMax, due - issued);
      const stampUs = String(Math.round((performance.timeOrigin + now) * 1000));
      issued += n;
      inFlight++;
      requests++;
      const sending =
        n === 1
          ? producer.send(message(stampUs, warm)).then((r) => [r])
          : producer.sendBatch(Array.from({ length: n }, () => message(stampUs, warm)));
      sending
        .then(
          (results) => {
            for (const r of results) {
              if (r.status === 'SEND_OK') {
                sent++;
                if (!warm) steadySent++;
              } else failed++;
            }
          },
          (error) => {
            failed += n;
            if (!firstError) firstError = String(error?.message ? error.message : error);
          },
        )
        .then(() => {
          inFlight--;
          if (closing && inFlight === 0) finish();
          // An answer sends more only when a tick left due messages behind for the in-flight cap: otherwise what
          // falls due goes out with the next tick, so a request carries a tick's worth (about rate / 1,000) and
          // not whatever fell due since the last answer (at 20,000 msg/s that made 3.5 requests a millisecond of 1-5
          // messages each: broker CPU on the core the broker shares with this producer).
          else if (capped) pump();
        });
      due = closing ? issued : dueNow();
    }
    capped = issued < due;
  };
  const tick = () => {
    const elapsed = performance.now() - t0;
    if (elapsed >= durationMs) {
      closing = true;
      if (inFlight === 0) finish();
      return;
    }
    maxBehind = Math.max(maxBehind, dueNow() - issued);
    pump();
    setTimeout(tick, 1);
  };
  tick();
  await finished;
  const result = {
    client: 'mqkit-producer',
    rate: s.rate,
    seconds: s.seconds,
    sent,
    failed,
    sentPerSec: Math.round((sent - 1) / s.seconds),
    steadySentPerSec: Math.round(steadySent / (s.seconds - s.warmupSec)),
    maxBehindMs: Math.round((maxBehind * 1000) / s.rate),
    requests,
  };
  if (firstError) result.firstError = firstError;
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
  await producer.stop();
  process.exit(0);
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ? error.stack : String(error)}\n`);
  process.exit(1);
});
