import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StandaloneProducer } from '@mqkit/core';
import { runNodeChild, type BenchChild, type javaRunner } from '../bench-process';
import { clockTicksPerSecond, cpuTicks } from '../scale/proc-stat';

export type Side = 'mqkit' | 'java';
type JavaRunner = Awaited<ReturnType<typeof javaRunner>>;

/** What latency-producer.child.cjs reports for one paced phase. */
export interface ProducerRun {
  readonly rate: number;
  readonly sent: number;
  readonly failed: number;
  readonly sentPerSec: number;
  readonly steadySentPerSec: number;
  readonly maxBehindMs: number;
  readonly requests: number;
  readonly firstError?: string;
}

/**
 * How late the consumer's event loop ran during a phase (mqkit only: monitorEventLoopDelay in its process, the
 * sampling interval taken off), and the garbage collector's pauses in the same phase (older results lack them).
 */
export interface LoopDelay {
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly gcCount?: number;
  readonly gcMs?: number;
  readonly gcMaxMs?: number;
}

/** One phase (one rate) of a session: the producer's report and the consumer's latencies, sorted ascending. */
export interface PhaseRun {
  readonly rate: number;
  readonly producer: ProducerRun;
  /** Send stamp to handler start, ms. */
  readonly latencies: Float64Array;
  /**
   * The consumer's part of the same messages: the broker's store stamp to handler start, ms (sorted on its own, so
   * not paired with `latencies` by index). The store stamp has millisecond resolution.
   */
  readonly deliveries?: Float64Array;
  /** The consumer process's CPU time (all threads) from the phase's first send to its drain, as % of one core. */
  readonly consumerCpuPct?: number;
  /**
   * The broker's CPU over the same time, % of one core: serving the producer's sends and this consumer's pulls,
   * on the core the producer shares. When it is high the sends wait, and the end-to-end tail grows for both
   * clients alike (on 2026-12-02 the two clients cost the broker the same within a few %).
   */
  readonly brokerCpuPct?: number;
  readonly loopDelay?: LoopDelay;
}

export interface SessionOptions {
  readonly side: Side;
  readonly namesrvAddr: string;
  /** A fresh topic: nothing stored before the session, so no backlog enters the latencies. */
  readonly topic: string;
  readonly group: string;
  /** Queue keys (broker:queueId) the consumer must show it pulls, by a probe from each, before sending starts. */
  readonly queueCount: number;
  readonly threads: number;
  readonly handlerMs: number;
  readonly pullBatchSize: number;
  readonly rates: readonly number[];
  readonly seconds: number;
  readonly warmupSec: number;
  readonly size: number;
  readonly batchMax: number;
  readonly maxInFlight: number;
  /** The broker's pid, for its CPU per phase (undefined: not measured). */
  readonly brokerPid?: number;
  /** The parent's producer, for probe messages only (never for timed sends). */
  readonly prober: StandaloneProducer;
  readonly java: JavaRunner;
  readonly log: (line: string) => void;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * One consumer process (mqkit or Java) on a fresh topic through every rate of a variant: start it, probe until it
 * pulls every queue, then for each rate a fresh paced producer process and a wait until the consumer handled all
 * that was sent (so no phase's backlog spills into the next), then SIGTERM, which makes it write its latencies.
 */
export async function runSession(o: SessionOptions): Promise<PhaseRun[]> {
  const outDir = mkdtempSync(join(tmpdir(), 'mqkit-latency-'));
  const probed = new Set<string>();
  let handled = 0;
  const onLine = (line: string): void => {
    if (line.startsWith('COUNT ')) handled = Number(line.slice(6));
    else if (line.startsWith('PROBE ')) probed.add(line.slice(6).trim());
  };
  // Capacity per phase: the highest rate for the whole window, with room for a producer that overshoots.
  const capacityPerPhase = Math.ceil(Math.max(...o.rates) * o.seconds * 1.2) + 1000;
  const timeoutSec = Math.ceil(o.rates.length * (o.seconds + 60) + 120);
  const consumer = startConsumer(o, { outDir, capacityPerPhase, timeoutSec, onLine });
  const exited = new Promise<void>((resolve) => consumer.process.once('close', () => resolve()));
  let gone = false;
  void exited.then(() => (gone = true));
  consumer.result.catch(() => undefined);
  try {
    const readyMs = await probeUntilReady(o, probed, () => gone);
    o.log(`  ${o.side} consumer pulls all ${o.queueCount} queues (probe from each) ${readyMs} ms after spawn`);
    const producers: ProducerRun[] = [];
    const cpuPct: number[] = [];
    const brokerPct: (number | undefined)[] = [];
    let expected = 0;
    for (let phase = 0; phase < o.rates.length; phase++) {
      const rate = o.rates[phase]!;
      const settings = {
        namesrvAddr: o.namesrvAddr,
        topic: o.topic,
        phase,
        rate,
        seconds: o.seconds,
        warmupSec: o.warmupSec,
        size: o.size,
        batchMax: o.batchMax,
        maxInFlight: o.maxInFlight,
      };
      const cpuBefore = processCpu(consumer.process.pid!);
      const brokerBefore = o.brokerPid === undefined ? undefined : processCpu(o.brokerPid);
      // The producer is load, not the client under test: it shares the broker's CPU, the consumer has its own.
      const run = (await runNodeChild('latency-producer.child.cjs', settings, {
        timeoutMs: (o.seconds + 60) * 1000,
        cpus: 'server',
      }).result) as unknown as ProducerRun;
      producers.push(run);
      expected += run.sent;
      await drain(
        () => handled,
        expected,
        () => gone,
        o.log,
        `${o.side} at ${rate} msg/s`,
      );
      cpuPct.push(cpuPctBetween(cpuBefore, processCpu(consumer.process.pid!)));
      brokerPct.push(brokerBefore === undefined ? undefined : cpuPctBetween(brokerBefore, processCpu(o.brokerPid!)));
      if (run.failed > 0)
        o.log(`  producer at ${rate} msg/s: ${run.failed} sends failed (${run.firstError ?? 'no error text'})`);
    }
    consumer.process.kill('SIGTERM');
    const report = await consumer.result;
    const recorded = String(report.recorded ?? '')
      .split(',')
      .map(Number);
    if (Number(report.overflow ?? 0) > 0)
      o.log(`  ${o.side}: ${String(report.overflow)} latencies past the capacity were not kept`);
    return o.rates.map((rate, phase) => {
      const latencies = readLatencies(join(outDir, `${o.side}-${phase}.f64`), recorded[phase]!);
      const deliveries = readLatencies(join(outDir, `${o.side}-${phase}.deliver.f64`), recorded[phase]!);
      const loopDelay = (report.loopDelay as (LoopDelay | null)[] | undefined)?.[phase] ?? undefined;
      const brokerCpuPct = brokerPct[phase];
      return {
        rate,
        producer: producers[phase]!,
        latencies,
        deliveries,
        consumerCpuPct: cpuPct[phase]!,
        ...(brokerCpuPct === undefined ? {} : { brokerCpuPct }),
        ...(loopDelay ? { loopDelay } : {}),
      };
    });
  } finally {
    if (!gone) consumer.process.kill('SIGKILL');
    await Promise.race([exited, sleep(5_000)]);
    rmSync(outDir, { recursive: true, force: true });
  }
}

/** A process's CPU ticks (user + system, all threads) now, read from /proc by this process (either client, the broker). */
function processCpu(pid: number): { ticks: number; at: number } {
  const t = cpuTicks(pid);
  return { ticks: t.user + t.system, at: Date.now() };
}

/** CPU used between two readings, as % of one core, one decimal. */
function cpuPctBetween(before: { ticks: number; at: number }, after: { ticks: number; at: number }): number {
  return (
    Math.round(((after.ticks - before.ticks) / clockTicksPerSecond() / ((after.at - before.at) / 1000)) * 1000) / 10
  );
}

function startConsumer(
  o: SessionOptions,
  c: { outDir: string; capacityPerPhase: number; timeoutSec: number; onLine: (line: string) => void },
): BenchChild {
  const killAfterMs = (c.timeoutSec + 30) * 1000;
  if (o.side === 'mqkit') {
    const settings = {
      namesrvAddr: o.namesrvAddr,
      topic: o.topic,
      group: o.group,
      threads: o.threads,
      handlerMs: o.handlerMs,
      pullBatchSize: o.pullBatchSize,
      consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
      outDir: c.outDir,
      phases: o.rates.length,
      capacityPerPhase: c.capacityPerPhase,
      timeoutMs: c.timeoutSec * 1000,
    };
    return runNodeChild('mqkit-latency.child.cjs', settings, { timeoutMs: killAfterMs, onLine: c.onLine });
  }
  const args = [
    o.namesrvAddr,
    o.topic,
    o.group,
    o.threads,
    o.handlerMs,
    o.pullBatchSize,
    'LAST',
    c.outDir,
    o.rates.length,
    c.capacityPerPhase,
    c.timeoutSec,
  ].map(String);
  return o.java.run('LatencyConsumerBench', args, killAfterMs, c.onLine);
}

/**
 * Sends a probe to every queue (round robin: queueCount sends in a row) every 500 ms until the consumer printed a
 * probe from each queue: it then owns every queue, knows its offsets and has a pull waiting in the broker.
 */
async function probeUntilReady(o: SessionOptions, probed: Set<string>, gone: () => boolean): Promise<number> {
  const started = Date.now();
  while (probed.size < o.queueCount) {
    if (gone()) throw new Error(`${o.side} consumer exited before it pulled every queue`);
    if (Date.now() - started > 90_000)
      throw new Error(`${o.side} consumer pulled ${probed.size} of ${o.queueCount} queues after 90 s`);
    for (let i = 0; i < o.queueCount; i++)
      await o.prober.send({ topic: o.topic, body: 'probe', properties: { mqkitProbe: '1' } });
    const until = Date.now() + 500;
    while (probed.size < o.queueCount && Date.now() < until) await sleep(10);
  }
  return Date.now() - started;
}

/** Waits until the consumer handled `expected` messages; gives up after 10 s without progress (then says so). */
async function drain(
  handled: () => number,
  expected: number,
  gone: () => boolean,
  log: (line: string) => void,
  what: string,
): Promise<void> {
  let last = handled();
  let lastChange = Date.now();
  while (handled() < expected) {
    if (gone()) throw new Error(`${what}: consumer exited after ${handled()} of ${expected} messages`);
    if (handled() !== last) {
      last = handled();
      lastChange = Date.now();
    } else if (Date.now() - lastChange > 10_000) {
      log(`  ${what}: consumer handled ${last} of ${expected} sent messages, none for 10 s; going on`);
      return;
    }
    await sleep(20);
  }
}

/** A consumer's latency file (float64, little endian, ms) as an ascending Float64Array; it must hold what RESULT says it recorded. */
function readLatencies(path: string, recorded: number): Float64Array {
  const bytes = readFileSync(path);
  if (bytes.length !== recorded * 8)
    throw new Error(`${path} holds ${bytes.length / 8} latencies, the consumer's RESULT says ${recorded}`);
  const values = new Float64Array(bytes.length / 8);
  for (let i = 0; i < values.length; i++) values[i] = bytes.readDoubleLE(i * 8);
  return values.sort();
}
