'use strict';
/**
 * mqkit's side of `npm run bench -- latency`, in its own process; mirrors LatencyConsumerBench.java (same
 * settings, same protocol with the parent, see there). Requires the built dist of @mqkit/core and
 * @mqkit/transport-rocketmq, so it measures the packages users get.
 *
 * The handler's first statement takes the time; latency = now - the producer's stamp (user property mqkitT, epoch
 * microseconds). Both stamps are performance.timeOrigin + performance.now(): the wall clock at process start plus
 * a monotonic offset, resolution well under a microsecond; producer and consumer run on this machine, so the
 * difference has no clock offset in it (only the drift of the two processes' anchors, microseconds per minute).
 * Beside it, the delivery part: now - the broker's storeTimestamp (epoch ms, the broker's wall clock on this
 * machine), the time from the message being stored to the handler. It is what the consumer is responsible for;
 * the rest (send to stored) is the producer's and the broker's, the same for both clients. Its resolution is the
 * store stamp's millisecond, so it reads up to 1 ms high.
 *
 * Argument: one JSON object { namesrvAddr, topic, group, threads, handlerMs, pullBatchSize, consumeFromWhere,
 * outDir, phases, capacityPerPhase, timeoutMs }. With MQKIT_BENCH_CPU_PROF=<prefix> it writes a V8 CPU profile of
 * the whole session to <prefix>-<group>.cpuprofile, with MQKIT_BENCH_HEAP_PROF=<prefix> a sampling heap profile of what
 * it allocates to <prefix>-<group>.heapprofile (MQKIT_BENCH_HEAP_PROF_KEEP=survivors: only what outlived the young
 * generation; profilers cost time: never on a measured run).
 */
const { cpuProfiler, heapProfiler, peakRssKib } = require('./child-util.cjs');
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { monitorEventLoopDelay, performance, PerformanceObserver } = require('node:perf_hooks');
const { Consumer, createConsumerApp } = require('@mqkit/core');
const { rocketmqTransport } = require('@mqkit/transport-rocketmq');

async function main() {
  const s = JSON.parse(process.argv[2]);
  // One preallocated array per phase, as on the Java side; a message past the capacity is counted as overflow.
  const latencies = Array.from({ length: s.phases }, () => new Float64Array(s.capacityPerPhase));
  const deliveries = Array.from({ length: s.phases }, () => new Float64Array(s.capacityPerPhase));
  const recorded = new Array(s.phases).fill(0);
  let handled = 0;
  let overflow = 0;
  // How late this process's event loop ran, per phase (the histogram restarts at a phase's first message): a stall
  // of the whole process shows here, queueing inside the engine does not. Java's side has no such figure.
  // The default 10 ms sampling: a tick every millisecond would itself cost the process it watches.
  // The histogram records each interval between its timer's firings, the 10 ms resolution included (an idle loop
  // reads p50 10.1 ms): the lateness is the recorded value minus the resolution.
  const LOOP_RESOLUTION_MS = 10;
  const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  loop.enable();
  const loopDelay = new Array(s.phases).fill(null);
  let loopPhase = -1;
  // The garbage collector's pauses in the same phase: whether the loop's lateness (and the latency tail) is GC.
  let gc = { count: 0, ms: 0, maxMs: 0 };
  new PerformanceObserver((list) => {
    if (loopPhase < 0) return;
    for (const entry of list.getEntries()) {
      gc.count++;
      gc.ms += entry.duration;
      if (entry.duration > gc.maxMs) gc.maxMs = entry.duration;
    }
  }).observe({ entryTypes: ['gc'] });
  const r2 = (x) => Math.round(x * 100) / 100;
  const closeLoopPhase = () => {
    if (loopPhase < 0) return;
    const late = (ns) => r2(Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS));
    loopDelay[loopPhase] = {
      p99Ms: late(loop.percentile(99)),
      maxMs: late(loop.max),
      gcCount: gc.count,
      gcMs: r2(gc.ms),
      gcMaxMs: r2(gc.maxMs),
    };
  };
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  class LatencyHandler {
    // Not async: the no-op variant returns nothing, like the Java listener; the slow one returns the sleep.
    handle(message) {
      const nowMs = performance.timeOrigin + performance.now();
      const p = message.properties;
      if (p.mqkitProbe !== undefined) {
        process.stdout.write(`PROBE ${message.brokerName}:${message.queueId}\n`);
        return;
      }
      handled++;
      if (p.mqkitT !== undefined && p.mqkitWarm === undefined) {
        const phase = Number(p.mqkitPhase);
        if (phase !== loopPhase) {
          closeLoopPhase();
          loop.reset();
          gc = { count: 0, ms: 0, maxMs: 0 };
          loopPhase = phase;
        }
        const slot = recorded[phase];
        if (slot < s.capacityPerPhase) {
          latencies[phase][slot] = nowMs - Number(p.mqkitT) / 1000;
          deliveries[phase][slot] = nowMs - message.storeTimestamp;
          recorded[phase]++;
        } else overflow++;
      }
      // The slow-handler variant: Java's side sleeps the consume thread for the same time.
      if (s.handlerMs > 0) return sleep(s.handlerMs);
      return undefined;
    }
  }
  Consumer({
    group: s.group,
    topic: s.topic,
    consumeFromWhere: s.consumeFromWhere,
    pullBatchSize: s.pullBatchSize,
    consumeMessageBatchMaxSize: 1,
    consumeThreadMin: s.threads,
    consumeThreadMax: s.threads,
  })(LatencyHandler);

  const app = await createConsumerApp({
    transport: rocketmqTransport({ nameServer: s.namesrvAddr }),
    consumers: [LatencyHandler],
  });
  const prof = process.env.MQKIT_BENCH_CPU_PROF;
  const stopProfile = await cpuProfiler(prof ? `${prof}-${s.group}.cpuprofile` : undefined);
  const heapProf = process.env.MQKIT_BENCH_HEAP_PROF;
  const stopHeapProfile = await heapProfiler(
    heapProf ? `${heapProf}-${s.group}.heapprofile` : undefined,
    process.env.MQKIT_BENCH_HEAP_PROF_KEEP,
  );
  let done = false;
  const finish = async (code) => {
    if (done) return;
    done = true;
    await stopProfile().catch((error) => process.stderr.write(`CPU profile not written: ${error}\n`));
    await stopHeapProfile().catch((error) => process.stderr.write(`heap profile not written: ${error}\n`));
    for (let i = 0; i < s.phases; i++) {
      writeFileSync(join(s.outDir, `mqkit-${i}.f64`), Buffer.from(latencies[i].buffer, 0, recorded[i] * 8));
      writeFileSync(join(s.outDir, `mqkit-${i}.deliver.f64`), Buffer.from(deliveries[i].buffer, 0, recorded[i] * 8));
    }
    closeLoopPhase();
    const result = {
      client: 'mqkit-push',
      handled,
      recorded: recorded.join(','),
      overflow,
      loopDelay,
      peakRssKib: peakRssKib(),
    };
    process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
    // No app.stop(): the topic and group are throwaway, and Java's side does not shut its consumer down either.
    process.exit(code);
  };
  process.once('SIGTERM', () => finish(0));
  await app.start();
  setInterval(() => process.stdout.write(`COUNT ${handled}\n`), 200).unref();
  // The parent stops this process with SIGTERM; the timeout only bounds a run whose parent went away.
  setTimeout(() => finish(1), s.timeoutMs);
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ? error.stack : String(error)}\n`);
  process.exit(1);
});
