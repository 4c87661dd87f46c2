'use strict';
/**
 * mqkit's side of `npm run bench -- scale`, in its own process, with the settings of ScaleMember.java:
 * CONSUME_FROM_FIRST_OFFSET, pullBatchSize 32, consumeThreadMin/Max 20 (concurrent handler calls),
 * consumeMessageBatchMaxSize 1, default pull interval and default profile, a handler that only counts. Requires the
 * built dist of @mqkit/core and @mqkit/transport-rocketmq, so it measures the packages users get.
 *
 * Argument: one JSON object; `mode` picks what it does:
 * - member { namesrvAddr, group, topics, diagnoseDir? }: one group on every topic. Prints "STARTING {at}" right
 *   before start() and "ALLOC {at,topic,members,queues}" on each consumer.rebalance event (emitted once a changed
 *   allocation of a topic is applied), as ScaleMember does. Runs until SIGTERM (clean stop) or SIGKILL. With
 *   diagnoseDir, SIGUSR2 profiles it (see diagnoseOnSignal).
 * - backlog { namesrvAddr, group, topics, expected, from, to, timeoutMs }: reads `expected` messages; prints
 *   RESULT with fromMs/toMs, when the count reached the 10 % and 90 % marks (ms after start()).
 * - groups { namesrvAddr, groups: [{ group, topic }] }: one createConsumerApp with one @Consumer class per group;
 *   prints "GROUP {at}" at each group's first message and "FIRST {at}" once every group has. Runs until SIGTERM or SIGKILL.
 */
const { peakRssKib } = require('./child-util.cjs');
const { Consumer, createConsumerApp } = require('@mqkit/core');
const { rocketmqTransport } = require('@mqkit/transport-rocketmq');

const SETTINGS = {
  consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
  pullBatchSize: 32,
  consumeMessageBatchMaxSize: 1,
  consumeThreadMin: 20,
  consumeThreadMax: 20,
};

/** One handler class per topic, all in `group`: mqkit merges same-group declarations into one consumer. */
function handlers(group, topics, onMessage) {
  return topics.map((topic) => {
    const Handler = class {
      handle() {
        onMessage();
      }
    };
    Consumer({ group, topic, ...SETTINGS })(Handler);
    return Handler;
  });
}

function app(settings, consumers) {
  return createConsumerApp({ transport: rocketmqTransport({ nameServer: settings.namesrvAddr }), consumers });
}

/** Stops cleanly on SIGTERM/SIGINT (offsets committed, the member unregistered), as the Java side's shutdown hook. */
function stopOnSignal(running) {
  const stop = () => running.stop({ timeoutMs: 5_000 }).finally(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

async function member(settings) {
  const topics = new Set(settings.topics);
  const running = await app(
    settings,
    handlers(settings.group, settings.topics, () => undefined),
  );
  running.on('consumer.rebalance', (event) => {
    // The group also rebalances its retry topic (%RETRY%<group>): only the measured topics count.
    if (!topics.has(event.topic)) return;
    const queues = event.allocated.map((mq) => `${mq.brokerName}:${mq.queueId}`).sort();
    process.stdout.write(
      `ALLOC ${JSON.stringify({ at: Date.now(), topic: event.topic, members: event.cidAll.length, queues })}\n`,
    );
  });
  stopOnSignal(running);
  if (settings.diagnoseDir) diagnoseOnSignal(settings.diagnoseDir, running);
  process.stdout.write(`STARTING ${JSON.stringify({ at: Date.now() })}\n`);
  await running.start();
}

/**
 * Where an idle member's CPU and memory go, for the parent's diagnosis (a separate run: the profiler costs CPU).
 * First SIGUSR2: the CPU profiler and allocation sampling start. Second: they stop and write idle.cpuprofile and
 * idle.heapprofile, then the process prints
 * "MEMORY {process.memoryUsage(), heap spaces, GCs in the window}", writes idle.heapsnapshot and prints "DIAGNOSED {files}".
 */
function diagnoseOnSignal(dir, running) {
  const inspector = require('node:inspector');
  const v8 = require('node:v8');
  const { join } = require('node:path');
  const { writeFileSync } = require('node:fs');
  const { PerformanceObserver, constants } = require('node:perf_hooks');
  const session = new inspector.Session();
  // Garbage collections during the window, by kind: how much an idle member allocates shows as scavenges.
  const gcs = { minor: 0, major: 0, other: 0, ms: 0 };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = entry.detail?.kind;
      gcs[
        kind === constants.NODE_PERFORMANCE_GC_MINOR
          ? 'minor'
          : kind === constants.NODE_PERFORMANCE_GC_MAJOR
            ? 'major'
            : 'other'
      ]++;
      gcs.ms += entry.duration;
    }
  });
  // Requests an idle member makes: long polls coming back, and offset commits.
  const events = { pulls: 0, commits: 0 };
  let step = 0;
  process.on('SIGUSR2', () => {
    step++;
    if (step === 1) {
      observer.observe({ entryTypes: ['gc'] });
      running.on('consumer.pull', () => events.pulls++);
      running.on('consumer.commit', () => events.commits++);
      session.connect();
      // Allocation sampling keeps what GC collected too: an idle member's memory cost is garbage, not live data.
      const sampling = {
        samplingInterval: 16384,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      };
      session.post('Profiler.enable', () =>
        session.post('Profiler.start', () =>
          session.post('HeapProfiler.enable', () =>
            session.post('HeapProfiler.startSampling', sampling, () => process.stdout.write('PROFILING {}\n')),
          ),
        ),
      );
      return;
    }
    if (step !== 2) return;
    session.post('HeapProfiler.stopSampling', (heapError, heapAnswer) =>
      session.post('Profiler.stop', (error, answer) => {
        observer.disconnect();
        const cpuprofile = join(dir, 'idle.cpuprofile');
        const allocations = join(dir, 'idle.heapprofile');
        if (!error) writeFileSync(cpuprofile, JSON.stringify(answer.profile));
        if (!heapError) writeFileSync(allocations, JSON.stringify(heapAnswer.profile));
        session.disconnect();
        const spaces = Object.fromEntries(
          v8.getHeapSpaceStatistics().map((s) => [s.space_name, { size: s.space_size, used: s.space_used_size }]),
        );
        process.stdout.write(`MEMORY ${JSON.stringify({ ...process.memoryUsage(), spaces, gcs, events })}\n`);
        const heapsnapshot = v8.writeHeapSnapshot(join(dir, 'idle.heapsnapshot'));
        process.stdout.write(
          `DIAGNOSED ${JSON.stringify({ cpuprofile, allocations: heapError ? null : allocations, heapsnapshot })}\n`,
        );
      }),
    );
  });
}

async function backlog(settings) {
  let received = 0;
  let firstNs = 0n;
  let fromNs = 0n;
  let toNs = 0n;
  let finish;
  const done = new Promise((resolve) => (finish = resolve));
  const running = await app(
    settings,
    handlers(settings.group, settings.topics, () => {
      const count = ++received;
      if (count === 1) firstNs = process.hrtime.bigint();
      if (count === settings.from) fromNs = process.hrtime.bigint();
      if (count === settings.to) toNs = process.hrtime.bigint();
      if (count === settings.expected) finish(true);
    }),
  );
  const startNs = process.hrtime.bigint();
  await running.start();
  const timer = setTimeout(() => finish(false), settings.timeoutMs);
  const ok = await done;
  clearTimeout(timer);
  const sinceStart = (ns) => (ns ? Number(ns - startNs) / 1e6 : -1);
  const result = {
    client: 'mqkit-push',
    ok,
    received,
    expected: settings.expected,
    elapsedMs: Math.round(sinceStart(process.hrtime.bigint())),
    firstMessageMs: sinceStart(firstNs),
    fromMs: sinceStart(fromNs),
    toMs: sinceStart(toNs),
    peakRssKib: peakRssKib(),
  };
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
  await running.stop({ timeoutMs: 5_000 });
  process.exit(ok ? 0 : 1);
}

async function groups(settings) {
  let waiting = settings.groups.length;
  const consumers = settings.groups.flatMap(({ group, topic }) => {
    let first = true;
    return handlers(group, [topic], () => {
      if (!first) return;
      first = false;
      const at = Date.now();
      process.stdout.write(`GROUP ${JSON.stringify({ at })}\n`);
      if (--waiting === 0) process.stdout.write(`FIRST ${JSON.stringify({ at })}\n`);
    });
  });
  const running = await app(settings, consumers);
  stopOnSignal(running);
  await running.start();
}

const MODES = { member, backlog, groups };

const settings = JSON.parse(process.argv[2]);
MODES[settings.mode](settings).catch((error) => {
  process.stderr.write(`${error?.stack ? error.stack : String(error)}\n`);
  process.exit(1);
});
