'use strict';
/**
 * What every bench child process (*.child.cjs) reports the same way: its peak resident set, a CPU profile of its
 * run when asked (MQKIT_BENCH_CPU_PROF=<file>), a heap profile of what it allocates (MQKIT_BENCH_HEAP_PROF, the latency
 * child; MQKIT_BENCH_HEAP_PROF_KEEP=survivors for what outlives the young generation), and a consume run's metered figures.
 */
const { readFileSync, writeFileSync } = require('node:fs');

/** VmHWM (peak resident set) of this process in KiB, the figure the Java programs read of themselves; -1 without /proc. */
function peakRssKib() {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    return match ? Number(match[1]) : -1;
  } catch {
    return -1;
  }
}

/** An inspector session on this process and a promise-returning `post` for it. */
function inspectorSession() {
  const { Session } = require('node:inspector');
  const session = new Session();
  session.connect();
  const post = (method, params) =>
    new Promise((resolve, reject) => session.post(method, params, (e, r) => (e ? reject(e) : resolve(r))));
  return { session, post };
}

/** Starts the inspector's CPU profiler when `file` is set; resolves to a function that stops it and writes the profile. */
async function cpuProfiler(file) {
  if (!file) return async () => undefined;
  const { session, post } = inspectorSession();
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 200 });
  await post('Profiler.start');
  return async () => {
    const { profile } = await post('Profiler.stop');
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  };
}

/**
 * Starts V8's sampling heap profiler when `file` is set; resolves to a function that stops it and writes the
 * profile (.heapprofile, which Chrome DevTools opens). `keep` says which freed objects still count:
 * - 'all' (the default): what the process allocates, the young-generation churn behind its scavenges;
 * - 'survivors': not what a scavenge freed, only what outlived the young generation (promoted, then freed by a
 *   mark-compact, or live at the end). That is what fills the old generation and brings on its major collections.
 */
async function heapProfiler(file, keep = 'all') {
  if (!file) return async () => undefined;
  if (keep !== 'all' && keep !== 'survivors')
    throw new Error(`heap profile keep '${keep}' is not one of all, survivors`);
  const { session, post } = inspectorSession();
  await post('HeapProfiler.startSampling', {
    samplingInterval: 8192,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: keep === 'all',
  });
  return async () => {
    const { profile } = await post('HeapProfiler.stopSampling');
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  };
}

/**
 * The figures of a consume child's RESULT line that come from its SteadyMeter (steady-meter.ts) and /proc, named as
 * the rocketmq case reads them (steadyMs is -1 when the run never reached the 90 % mark).
 */
function meterReport(meter) {
  const m = meter.result();
  return {
    received: meter.count,
    elapsedMs: m.elapsedMs,
    totalMsgsPerSec: m.totalMsgsPerSec,
    firstMessageMs: m.firstMessageMs,
    steadyMs: m.steadyWindowMs > 0 ? Math.round(m.steadyWindowMs) : -1,
    steadyMsgsPerSec: m.steadyMsgsPerSec,
    peakRssKib: peakRssKib(),
  };
}

module.exports = { peakRssKib, cpuProfiler, heapProfiler, meterReport };
