import { describe, expect, it } from 'vitest';
import type { PhaseRun } from './latency-session';
import { p99Limit, summarizeRate } from './latency-stats';

const producer = { rate: 1000, sent: 1000, failed: 0, sentPerSec: 1000, steadySentPerSec: 1000, maxBehindMs: 1, requests: 1000 };
/** A run whose latencies are 1..n ms, scaled: its p50 is n/2 * scale, its p99 0.99 n * scale. */
const run = (n: number, scale: number): PhaseRun => ({ rate: 1000, producer, latencies: Float64Array.from({ length: n }, (_, i) => (i + 1) * scale) });

describe('latency statistics', () => {
  it('the p99 limit is the larger of 1.1 x and + 2 ms', () => {
    expect(p99Limit(5)).toBe(7);
    expect(p99Limit(30)).toBeCloseTo(33);
  });

  it('reports the median over runs of each run\'s exact percentiles, and checks mqkit\'s p99 against the limit', () => {
    const summary = summarizeRate({ mqkit: [run(1000, 0.01), run(1000, 0.03), run(1000, 0.02)], java: [run(1000, 0.01), run(1000, 0.01), run(1000, 0.01)] });
    // mqkit's runs have p99 9.9, 29.7 and 19.8 ms: the median is the third run's.
    expect(summary['mqkitP99RunsMs']).toEqual([9.9, 29.7, 19.8]);
    expect(summary['mqkitP99Ms']).toBe(19.8);
    expect(summary['mqkitP50Ms']).toBe(10);
    expect(summary['mqkitMaxMs']).toBe(20);
    expect(summary['javaP99Ms']).toBe(9.9);
    expect(summary['p99LimitMs']).toBe(11.9);
    expect(summary['p99TargetMet']).toBe(false);
    const met = summarizeRate({ mqkit: [run(1000, 0.011)], java: [run(1000, 0.01)] });
    expect(met['p99TargetMet']).toBe(true);
    expect(met).not.toHaveProperty('mqkitLoopDelayP99Ms');
  });

  it('reports the median event-loop delay of mqkit\'s runs beside its latencies', () => {
    const withLoop = (p99Ms: number, maxMs: number): PhaseRun => ({ ...run(100, 0.01), loopDelay: { p99Ms, maxMs } });
    const summary = summarizeRate({ mqkit: [withLoop(2, 30), withLoop(9, 12), withLoop(4, 18)], java: [run(100, 0.01)] });
    expect(summary['mqkitLoopDelayP99Ms']).toBe(4);
    expect(summary['mqkitLoopDelayMaxMs']).toBe(18);
  });
});
