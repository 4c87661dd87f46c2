import { median, percentile, round, spreadOf } from '../../report/run-stats';
import type { PhaseRun, Side } from './latency-session';

/** Exact percentiles of one run's latencies (ms), from the sorted sample. */
export interface RunPercentiles {
  readonly p50: number;
  readonly p99: number;
  readonly p999: number;
  readonly max: number;
  readonly samples: number;
}

export function percentilesOf(sorted: Float64Array): RunPercentiles {
  return {
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    p999: percentile(sorted, 99.9),
    max: percentile(sorted, 100),
    samples: sorted.length,
  };
}

/** Every run of one rate in one variant, per side, in the order they ran. */
export type RateRuns = Record<Side, PhaseRun[]>;

/** The p99 target: mqkit's p99 at most max(1.1 x Java's p99, Java's p99 + 2 ms). */
export function p99Limit(javaP99: number): number {
  return Math.max(1.1 * javaP99, javaP99 + 2);
}

const ms = (value: number): number => round(value, 2);

/**
 * One rate's entry of the result: the medians over the runs of each percentile (each run's percentile computed
 * from all its latencies), median sample counts, the producer's median achieved rate per side, each run's p99
 * and how the runs' p99s agree (`P99Spread`: a rerun repeats within 10 % or not), the p99 target check; and, when
 * every run of a side recorded them, the p50 and p99 of the consumer's own part (store stamp to handler start,
 * `DeliverP50Ms` / `DeliverP99Ms`): when a side's end-to-end tail moves between runs while this part does not,
 * the producer and the broker moved it.
 */
export function summarizeRate(runs: RateRuns): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const p99Runs: Record<Side, number[]> = { mqkit: [], java: [] };
  for (const side of ['mqkit', 'java'] as const) {
    const each = runs[side].map((r) => percentilesOf(r.latencies));
    out[`${side}P50Ms`] = ms(median(each.map((p) => p.p50)));
    out[`${side}P99Ms`] = ms(median(each.map((p) => p.p99)));
    out[`${side}P999Ms`] = ms(median(each.map((p) => p.p999)));
    out[`${side}MaxMs`] = ms(median(each.map((p) => p.max)));
    out[`${side}Samples`] = Math.round(median(each.map((p) => p.samples)));
    out[`${side}SentPerSec`] = Math.round(median(runs[side].map((r) => r.producer.sentPerSec)));
    const cpu = runs[side].flatMap((r) => (r.consumerCpuPct === undefined ? [] : [r.consumerCpuPct]));
    // How busy the consumer's one CPU was: a tail that grows with it is queueing in the consumer.
    if (cpu.length > 0) out[`${side}CpuPct`] = round(median(cpu), 1);
    const broker = runs[side].flatMap((r) => (r.brokerCpuPct === undefined ? [] : [r.brokerCpuPct]));
    // What the broker spent while this side consumed: its pulls' cost, on the CPU the producer's sends share.
    if (broker.length > 0) out[`${side}BrokerCpuPct`] = round(median(broker), 1);
    p99Runs[side] = each.map((p) => ms(p.p99));
    out[`${side}P99Spread`] = spreadOf(p99Runs[side]);
    const deliveries = runs[side].flatMap((r) => (r.deliveries ? [percentilesOf(r.deliveries)] : []));
    if (deliveries.length > 0 && deliveries.length === runs[side].length) {
      out[`${side}DeliverP50Ms`] = ms(median(deliveries.map((p) => p.p50)));
      out[`${side}DeliverP99Ms`] = ms(median(deliveries.map((p) => p.p99)));
      out[`${side}DeliverP99RunsMs`] = deliveries.map((p) => ms(p.p99));
    }
  }
  const limit = p99Limit(out.javaP99Ms as number);
  out.sentPerSec = Math.round(median([...runs.mqkit, ...runs.java].map((r) => r.producer.sentPerSec)));
  out.sendFailed = [...runs.mqkit, ...runs.java].reduce((n, r) => n + r.producer.failed, 0);
  const loops = runs.mqkit.flatMap((r) => (r.loopDelay ? [r.loopDelay] : []));
  if (loops.length > 0) {
    // Whether mqkit's tail is its process stalling: the event loop's own lateness in the same phases.
    out.mqkitLoopDelayP99Ms = ms(median(loops.map((l) => l.p99Ms)));
    out.mqkitLoopDelayMaxMs = ms(median(loops.map((l) => l.maxMs)));
    const gcs = loops.flatMap((l) => (l.gcMaxMs === undefined ? [] : [l]));
    if (gcs.length === loops.length) {
      // Whether the stalls are the collector's: its longest pause in each run, beside the loop's lateness.
      out.mqkitGcMaxMs = ms(median(gcs.map((l) => l.gcMaxMs!)));
      out.mqkitGcMaxRunsMs = gcs.map((l) => ms(l.gcMaxMs!));
      // Per run: how many pauses and their total, from the phase's first message to the next phase's.
      out.mqkitGcPausesRuns = gcs.map((l) => l.gcCount ?? 0);
      out.mqkitGcTotalRunsMs = gcs.map((l) => ms(l.gcMs ?? 0));
    }
  }
  out.mqkitP99RunsMs = p99Runs.mqkit;
  out.javaP99RunsMs = p99Runs.java;
  out.p99LimitMs = ms(limit);
  out.p99TargetMet = (out.mqkitP99Ms as number) <= limit;
  return out;
}

/** A human line for one run of one side at one rate. */
export function describeRun(side: Side, run: PhaseRun): string {
  const p = percentilesOf(run.latencies);
  const f = (v: number): string => v.toFixed(2);
  return (
    `${side} ${run.rate} msg/s: p50 ${f(p.p50)} p99 ${f(p.p99)} p99.9 ${f(p.p999)} max ${f(p.max)} ms over ${p.samples} messages` +
    (run.deliveries
      ? ` (stored to handler: p50 ${f(percentilesOf(run.deliveries).p50)} p99 ${f(percentilesOf(run.deliveries).p99)})`
      : '') +
    '; ' +
    `producer ${run.producer.sentPerSec} msg/s (${run.producer.steadySentPerSec} after warm-up, ${run.producer.requests} requests, ` +
    `at most ${run.producer.maxBehindMs} ms behind schedule${run.producer.failed ? `, ${run.producer.failed} failed` : ''})` +
    (run.loopDelay ? `; event loop late p99 ${f(run.loopDelay.p99Ms)} max ${f(run.loopDelay.maxMs)} ms` : '') +
    (run.loopDelay?.gcMaxMs !== undefined
      ? `; GC ${run.loopDelay.gcCount} pauses, ${f(run.loopDelay.gcMs ?? 0)} ms in all, longest ${f(run.loopDelay.gcMaxMs)} ms`
      : '') +
    (run.consumerCpuPct === undefined ? '' : `; consumer CPU ${run.consumerCpuPct} % of a core`) +
    (run.brokerCpuPct === undefined ? '' : `, broker CPU ${run.brokerCpuPct} %`)
  );
}
