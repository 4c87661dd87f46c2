import { freemem, loadavg, totalmem } from 'node:os';
import { uniqueName } from '@mqkit/core/testing';
import type { BenchCase } from './bench-case';
import { BenchCluster } from './bench-cluster';
import { javaRunner, runNodeChild, type BenchChild } from './bench-process';
import { flag, log } from './bench-util';
import { measureConvergence } from './group-convergence';
import { runtimeNote } from '../report/bench-results';
import { describeSpread, median, round, shortSpread, spreadOf, steadyMarks, type Spread } from '../report/run-stats';

/** What the three consumer programs report (raw-pull.child.cjs, mqkit-consume.child.cjs, PushConsumerBench). */
interface ConsumeRun {
  readonly ok: boolean;
  readonly received: number;
  readonly elapsedMs: number;
  readonly totalMsgsPerSec: number;
  readonly firstMessageMs: number;
  readonly steadyMs: number;
  readonly steadyMsgsPerSec: number;
  readonly peakRssKib: number;
  readonly error?: string;
}

type Side = 'raw' | 'mqkit' | 'java';
const SIDES: readonly Side[] = ['raw', 'mqkit', 'java'];

/** The targets: mqkit's steady rate at least twice Java's and at least 90 % of what the broker serves (raw). */
const TARGET_OF_JAVA = 2.0;
const TARGET_OF_RAW = 0.9;

const mb = (kib: number): number => round(kib / 1024, 1);
const fmt = (n: unknown): string => (typeof n === 'number' ? Math.round(n).toLocaleString('en-US') : String(n));

/** Round r's order: the sides rotated by r, so each goes first, second and third once in every 3 rounds. */
function orderOf(r: number): readonly Side[] {
  return SIDES.map((_, i) => SIDES[(i + r) % SIDES.length]!);
}

/**
 * `npm run bench -- rocketmq`: its own one-broker cluster through the harness, a backlog of 1 KiB messages, then
 * interleaved rounds of three clients, each in its own process with a fresh group from the first offset: the
 * transport's raw pull (what the broker serves), mqkit (no-op handler) and RocketMQ's DefaultMQPushConsumer.
 * Each reports its steady rate between the 10 % and the 90 % message (steadyMarks), apart from start-up and the
 * total; medians and their spreads. Then convergenceMs: SIGKILL of one of 3 mqkit member processes to an
 * assignment covering every queue again.
 */
export const rocketmqCase: BenchCase = {
  name: 'rocketmq',
  embedded: false,
  inAll: true,
  description:
    "consume rate of mqkit vs the transport's raw pull and RocketMQ's Java push consumer on a real cluster, and group convergence after a member is killed",
  async run(args) {
    const started = Date.now();
    // ~250k msg/s on this 2-core machine: 3M gives each client a steady window of 9-10 s (at 2M, 6 s windows
    // still spread 12-16 % between reruns); ~3.2 GiB of commit log, well within 40 % of RAM (checked below).
    const count = flag(args, 'messages', 3_000_000);
    const size = flag(args, 'size', 1024);
    const rounds = flag(args, 'rounds', 4);
    const threads = flag(args, 'threads', 20);
    const queues = flag(args, 'queues', 8);
    const trials = flag(args, 'convergence-rounds', 3);
    const warmPasses = flag(args, 'warm-passes', 1);
    const timeoutSec = flag(args, 'timeout', 300);
    log(
      `settings: backlog ${count} x ${size} B on one broker (broker-a, heap 512 MiB), ${queues} queues; three clients, each in its own process ` +
        `with a fresh group from the first offset: raw = the transport's own pull, one loop per queue, records decoded and discarded ` +
        `(no engine, no handler, no commits); mqkit default profile and RocketMQ DefaultMQPushConsumer (Java -Xmx512m) with pullBatchSize 32 ` +
        `(raw too, 256 KiB per pull), consumeMessageBatchMaxSize 1, consumeThreadMin/Max ${threads} (mqkit: ${threads} concurrent handler calls), ` +
        `a handler that only counts; untimed warm-up first: ${warmPasses} raw read(s) of the whole backlog; ${rounds} interleaved rounds (order rotates), medians; ` +
        `steady msgs/s between the 10 % and the 90 % message, total msgs/s from start() to the last, first message apart; peak RSS = VmHWM; ` +
        `convergence: 3 mqkit member processes, SIGKILL one, ${trials} trials, median`,
    );
    // The broker answers a pull of a message it thinks is on disk (further back than 40 % of RAM from the end,
    // accessMessageInMemoryMaxRatio) with 8 messages, not 32: the backlog must fit well within that.
    const backlogMb = (count * (size + 100)) / 1024 ** 2;
    const inMemoryMb = (0.4 * totalmem()) / 1024 ** 2;
    if (backlogMb > inMemoryMb)
      throw new Error(
        `a backlog of ~${Math.round(backlogMb)} MiB exceeds 40 % of RAM (${Math.round(inMemoryMb)} MiB): the broker would serve it as on disk`,
      );
    const load = (): string =>
      loadavg()
        .map((x) => x.toFixed(2))
        .join(' ');
    log(
      `machine: ${Math.round(freemem() / 1024 ** 2)} MiB free of ${Math.round(totalmem() / 1024 ** 2)}; backlog ~${Math.round(backlogMb)} MiB; load average ${load()}`,
    );
    const java = await javaRunner(log);
    const bench = await BenchCluster.start({ brokers: ['broker-a'], brokerHeapMb: 512 }, log);
    try {
      const topic = await bench.createTopic('BenchConsume', queues);
      const fillMs = await bench.fill(topic, count, size);
      const expected = await bench.stored(topic);
      if (expected !== count) throw new Error(`the backlog holds ${expected} messages, ${count} were sent`);
      const marks = steadyMarks(expected);
      log(
        `backlog: ${expected} messages stored in ${topic} (${fillMs} ms to fill); steady window: message ${marks.from} to ${marks.to}`,
      );
      const runs: Record<Side, ConsumeRun[]> = { raw: [], mqkit: [], java: [] };
      const childTimeoutMs = (timeoutSec + 60) * 1000;
      const start = (side: Side): BenchChild => {
        const group = uniqueName(`bench_${side}`);
        // The Node children derive the marks from `expected` with the same steadyMarks (SteadyMeter); Java is given them.
        const settings = { namesrvAddr: bench.namesrvAddr, topic, group, expected, timeoutMs: timeoutSec * 1000 };
        if (side === 'raw') return runNodeChild('raw-pull.child.cjs', settings, { timeoutMs: childTimeoutMs });
        if (side === 'mqkit')
          return runNodeChild('mqkit-consume.child.cjs', { ...settings, threads }, { timeoutMs: childTimeoutMs });
        const javaArgs = [bench.namesrvAddr, topic, group, expected, threads, timeoutSec, marks.from, marks.to].map(
          String,
        );
        return java.run('PushConsumerBench', javaArgs, childTimeoutMs);
      };
      // The first pass over a fresh broker is the slow one (its pull path not compiled yet): seen as every
      // client's first round running 20-30 % below its later ones after a 100k-message warm-up.
      for (let w = 0; w < warmPasses; w++) {
        const run = (await start('raw').result) as unknown as ConsumeRun;
        log(`warm-up ${w + 1} (untimed): raw read ${run.received} messages in ${run.elapsedMs} ms`);
      }
      for (let r = 0; r < rounds; r++) {
        for (const side of orderOf(r)) {
          const run = (await start(side).result) as unknown as ConsumeRun;
          if (!run.ok)
            throw new Error(
              `${side} read ${run.received} of ${expected} messages within ${timeoutSec} s${run.error ? `: ${run.error}` : ''}`,
            );
          runs[side].push(run);
          log(
            `round ${r + 1} ${side}: steady ${fmt(run.steadyMsgsPerSec)} msg/s (${marks.to - marks.from} in ${run.steadyMs} ms); ` +
              `total ${fmt(run.totalMsgsPerSec)} msg/s (${run.received} in ${run.elapsedMs} ms, first message after ${run.firstMessageMs} ms); peak RSS ${mb(run.peakRssKib)} MB`,
          );
        }
      }
      const convergence: number[] = [];
      const convergeTopic = await bench.createTopic('BenchConverge', queues);
      for (let t = 0; t < trials; t++) {
        const ms = await measureConvergence({ namesrvAddr: bench.namesrvAddr, topic: convergeTopic, queues, log });
        convergence.push(ms);
        log(`convergence trial ${t + 1}: ${ms} ms`);
      }
      const spreads = Object.fromEntries(
        SIDES.map((s) => [s, spreadOf(runs[s].map((x) => x.steadyMsgsPerSec))]),
      ) as Record<Side, Spread>;
      for (const s of SIDES) log(describeSpread(`steady ${s}`, spreads[s], 'msg/s'));
      const med = (side: Side, pick: (x: ConsumeRun) => number): number => median(runs[side].map(pick));
      const [raw, mqkit, javaSteady] = SIDES.map((s) => Math.round(spreads[s].median));
      const mqkitOfRaw = round(mqkit! / raw!, 3);
      const ratio = round(mqkit! / javaSteady!, 2);
      log(`case wall time: ${Math.round((Date.now() - started) / 1000)} s (budget 900 s); load average ${load()}`);
      return {
        brokerVersion: bench.cluster.version,
        messages: expected,
        size,
        queues,
        rounds,
        rawMsgsPerSec: raw,
        mqkitSteadyMsgsPerSec: mqkit,
        javaSteadyMsgsPerSec: javaSteady,
        mqkitOfRaw,
        javaOfRaw: round(javaSteady! / raw!, 3),
        ratio,
        mqkitAtLeast2xJava: ratio >= TARGET_OF_JAVA,
        mqkitAtLeast90pctOfRaw: mqkitOfRaw >= TARGET_OF_RAW,
        spreads,
        allWithin10pct: SIDES.every((s) => spreads[s].within10pct),
        mqkitTotalMsgsPerSec: Math.round(med('mqkit', (x) => x.totalMsgsPerSec)),
        javaTotalMsgsPerSec: Math.round(med('java', (x) => x.totalMsgsPerSec)),
        mqkitFirstMessageMs: Math.round(med('mqkit', (x) => x.firstMessageMs)),
        javaFirstMessageMs: Math.round(med('java', (x) => x.firstMessageMs)),
        mqkitPeakRssMb: mb(med('mqkit', (x) => x.peakRssKib)),
        javaPeakRssMb: mb(med('java', (x) => x.peakRssKib)),
        rawPeakRssMb: mb(med('raw', (x) => x.peakRssKib)),
        convergenceMs: Math.round(median(convergence)),
      };
    } finally {
      await bench.stop();
      java.close();
    }
  },
  tableRow(file) {
    const r = file.result;
    const spreads = r.spreads as Record<Side, Spread> | undefined;
    const met = r.mqkitAtLeast2xJava === true && r.mqkitAtLeast90pctOfRaw === true;
    return {
      measured:
        `${fmt(r.messages)} x ${fmt(r.size)} B already stored on one RocketMQ ${String(r.brokerVersion)} broker, ${fmt(r.queues)} queues; the transport's raw pull (records decoded and dropped), ` +
        `mqkit and Java's DefaultMQPushConsumer, each in its own process, same settings${runtimeNote(file)}; steady rate between the 10 % and the 90 % message, median of ${fmt(r.rounds)} interleaved rounds`,
      result:
        `mqkit **${fmt(r.mqkitSteadyMsgsPerSec)} msg/s** steady (${fmt(Number(r.mqkitOfRaw) * 100)} % of raw ${fmt(r.rawMsgsPerSec)}), ` +
        `Java ${fmt(r.javaSteadyMsgsPerSec)} (ratio **${String(r.ratio)}**); raw ${shortSpread(spreads?.raw)}, mqkit ${shortSpread(spreads?.mqkit)}, Java ${shortSpread(spreads?.java)}; ` +
        `start() to last message: mqkit ${fmt(r.mqkitTotalMsgsPerSec)}, Java ${fmt(r.javaTotalMsgsPerSec)} msg/s; ` +
        `peak RSS ${String(r.mqkitPeakRssMb)} MB against ${String(r.javaPeakRssMb)} MB; every queue covered again ${fmt(r.convergenceMs)} ms after SIGKILL of one of 3 members`,
      target: `mqkit steady >= ${TARGET_OF_JAVA} x Java and >= ${TARGET_OF_RAW} x raw: ${met ? 'met' : `missed (>= 2 x Java: ${r.mqkitAtLeast2xJava ? 'met' : 'missed'}; >= 0.9 x raw: ${r.mqkitAtLeast90pctOfRaw ? 'met' : 'missed'})`}`,
    };
  },
};
