import { describe, expect, it } from 'vitest';
import type { PhaseRun } from './latency-session';
import { p99Limit, summarizeRate } from './latency-stats';

const producer = {
  rate: 1000,
  sent: 1000,
  failed: 0,
  sentPerSec: 1000,
  steadySentPerSec: 1000,
  maxBehindMs: 1,
  requests: 1000,
};
/** A run whose latencies are 1..n ms, scaled: its p50 is n/2 * scale, its p99 0.99 n * scale. */
const run = (n: number, scale: number): PhaseRun => ({
  rate: 1000,
  producer,
  latencies: Float64Array.from({ length: n }, (_, i) => (i + 1) * scale),
});

describe('latency statistics', () => {
  it('the p99 limit is the larger of 1.1 x and + 2 ms', () => {
    expect(p99Limit(5)).toBe(7);
    expect(p99Limit(30)).toBeCloseTo(33);
  });

  it("reports the median over runs of each run's exact percentiles, and checks mqkit's p99 against the limit", () => {
    const summary = summarizeRate({
      mqkit: [run(1000, 0.01), run(1000, 0.03), run(1000, 0.02)],
      java: [run(1000, 0.01), run(1000, 0.01), run(1000, 0.01)],
    });
    // mqkit's runs have p99 9.9, 29.7 and 19.8 ms: the median is the third run's.
    expect(summary.mqkitP99RunsMs).toEqual([9.9, 29.7, 19.8]);
    expect(summary.mqkitP99Ms).toBe(19.8);
    expect(summary.mqkitP50Ms).toBe(10);
    expect(summary.mqkitMaxMs).toBe(20);
    expect(summary.javaP99Ms).toBe(9.9);
    expect(summary.p99LimitMs).toBe(11.9);
    expect(summary.p99TargetMet).toBe(false);
    const met = summarizeRate({ mqkit: [run(1000, 0.011)], java: [run(1000, 0.01)] });
    expect(met.p99TargetMet).toBe(true);
    expect(met).not.toHaveProperty('mqkitLoopDelayP99Ms');
  });

  it("reports the median event-loop delay of mqkit's runs beside its latencies", () => {
    const withLoop = (p99Ms: number, maxMs: number): PhaseRun => ({ ...run(100, 0.01), loopDelay: { p99Ms, maxMs } });
    const summary = summarizeRate({
      mqkit: [withLoop(2, 30), withLoop(9, 12), withLoop(4, 18)],
      java: [run(100, 0.01)],
    });
    expect(summary.mqkitLoopDelayP99Ms).toBe(4);
    expect(summary.mqkitLoopDelayMaxMs).toBe(18);
    expect(summary).not.toHaveProperty('mqkitGcMaxMs');
  });

  it('reports the longest GC pause of each mqkit run when every run measured it', () => {
    const withGc = (gcMaxMs: number): PhaseRun => ({
      ...run(100, 0.01),
      loopDelay: { p99Ms: 1, maxMs: 5, gcCount: 10, gcMs: 20, gcMaxMs },
    });
    const summary = summarizeRate({ mqkit: [withGc(3), withGc(11), withGc(6)], java: [run(100, 0.01)] });
    expect(summary.mqkitGcMaxRunsMs).toEqual([3, 11, 6]);
    expect(summary.mqkitGcMaxMs).toBe(6);
    expect(summary.mqkitGcPausesRuns).toEqual([10, 10, 10]);
    expect(summary.mqkitGcTotalRunsMs).toEqual([20, 20, 20]);
    const partly = summarizeRate({
      mqkit: [withGc(3), { ...run(100, 0.01), loopDelay: { p99Ms: 1, maxMs: 5 } }],
      java: [run(100, 0.01)],
    });
    expect(partly).not.toHaveProperty('mqkitGcMaxMs');
  });

  it("reports the consumer's stored-to-handler part beside the end-to-end figures, and whether the runs' p99s repeat", () => {
    const split = (n: number, scale: number, deliverScale: number): PhaseRun => ({
      ...run(n, scale),
      deliveries: run(n, deliverScale).latencies,
      consumerCpuPct: scale * 1000,
      brokerCpuPct: deliverScale * 10_000,
    });
    const summary = summarizeRate({
      mqkit: [split(1000, 0.01, 0.005), split(1000, 0.03, 0.006), split(1000, 0.02, 0.004)],
      java: [split(1000, 0.01, 0.002), split(1000, 0.0105, 0.003), split(1000, 0.0102, 0.001)],
    });
    // mqkit's end-to-end p99s (9.9, 29.7, 19.8) move while its stored-to-handler p99s (4.95, 5.94, 3.96) stay small.
    expect(summary.mqkitDeliverP99RunsMs).toEqual([4.95, 5.94, 3.96]);
    expect(summary.mqkitDeliverP99Ms).toBe(4.95);
    expect(summary.mqkitDeliverP50Ms).toBe(2.5);
    expect(summary.javaDeliverP99Ms).toBe(1.98);
    // Each run's consumer CPU (10, 30, 20 %): the median.
    expect(summary.mqkitCpuPct).toBe(20);
    // And the broker's while each run consumed (50, 60, 40 %).
    expect(summary.mqkitBrokerCpuPct).toBe(50);
    // Halves: runs 1 and 3 (median 14.85) against run 2 (29.7): far apart. Java's agree within 10 %.
    expect(summary.mqkitP99Spread).toMatchObject({ runs: 3, halves: [14.9, 29.7], within10pct: false });
    expect(summary.javaP99Spread).toMatchObject({ runs: 3, within10pct: true });
  });

  it('leaves the stored-to-handler figures out when a run did not record them', () => {
    const summary = summarizeRate({
      mqkit: [{ ...run(100, 0.01), deliveries: run(100, 0.005).latencies }, run(100, 0.01)],
      java: [run(100, 0.01)],
    });
    expect(summary).not.toHaveProperty('mqkitDeliverP99Ms');
    expect(summary).not.toHaveProperty('javaDeliverP99Ms');
  });
});
