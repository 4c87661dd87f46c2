import { describe, expect, it } from 'vitest';
import { percentile, spreadOf, steadyMarks, steadyRate } from './run-stats';
import { pooledSteadyRate, SteadyMeter } from './steady-meter';

/**
 * Resolves once the monotonic clock the meter stamps with has moved `ms` on. A bare setTimeout(5) is not enough:
 * libuv measures timers from the loop's cached time, so one can fire after 4.8 ms of hrtime (it failed CI once).
 */
async function hrtimeAdvanced(ms: number): Promise<void> {
  const until = process.hrtime.bigint() + BigInt(ms * 1e6);
  while (process.hrtime.bigint() < until) await new Promise((r) => setTimeout(r, 1));
}

describe('run statistics', () => {
  it('steady marks are the 10 % and 90 % messages', () => {
    expect(steadyMarks(1000)).toEqual({ from: 100, to: 900 });
    expect(steadyMarks(15)).toEqual({ from: 2, to: 13 });
    expect(steadyMarks(1)).toEqual({ from: 1, to: 2 });
    expect(steadyRate({ from: 100, to: 900 }, 0, 2e9)).toBe(400);
  });

  it('percentiles by nearest rank', () => {
    const sorted = Float64Array.from({ length: 1000 }, (_, i) => i + 1);
    expect(percentile(sorted, 50)).toBe(500);
    expect(percentile(sorted, 99)).toBe(990);
    expect(percentile(sorted, 99.9)).toBe(999);
    expect(percentile(sorted, 100)).toBe(1000);
    expect(percentile([7], 99.9)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });

  it("spread is (max - min) / median of single runs; repeatability is how far the odd runs' median is from the even runs'", () => {
    // Single runs 20 % apart, but both halves (runs 1, 3, 5 and 2, 4, 6) have the median 100: a rerun repeats.
    expect(spreadOf([90, 100, 100, 110, 110, 90])).toEqual({
      runs: 6,
      median: 100,
      spread: 0.2,
      halves: [100, 100],
      rerunDifference: 0,
      within10pct: true,
    });
    // Odd runs high, even runs low: the halves are 120 and 100, 18 % of the median 110 apart.
    const drifting = spreadOf([120, 100, 120, 100]);
    expect(drifting.halves).toEqual([120, 100]);
    expect(drifting.rerunDifference).toBe(0.182);
    expect(drifting.within10pct).toBe(false);
    expect(spreadOf([100]).within10pct).toBe(false);
    // Small figures (idle CPU in % of a core) keep three significant digits in their halves.
    expect(spreadOf([0.58, 0.53, 0.63]).halves).toEqual([0.605, 0.53]);
  });

  it('pools the steady windows of several passes: their messages over the sum of their windows', async () => {
    const passes = [new SteadyMeter(10), new SteadyMeter(10)];
    for (const meter of passes) {
      meter.add(1); // the 10 % mark: 1
      await hrtimeAdvanced(5);
      meter.add(9); // the 90 % mark (9) stepped to 10
    }
    const windows = passes.map((m) => m.window());
    expect(windows.map((w) => w.messages)).toEqual([9, 9]);
    const pooled = pooledSteadyRate(passes);
    expect(pooled.steadyMsgsPerSec).toBe(Math.round((18 * 1e9) / (windows[0]!.ns + windows[1]!.ns)));
    expect(pooled.steadyWindowMs).toBe(Math.round((windows[0]!.ns + windows[1]!.ns) / 1e5) / 10);
    expect(pooled.steadyWindowMs).toBeGreaterThanOrEqual(10);
  });

  it('the steady meter counts between the marks with the exact counts a batch stepped to', async () => {
    const meter = new SteadyMeter(100);
    meter.begin();
    for (let i = 0; i < 10; i++) {
      meter.add(7); // 7, 14, ..., 70: crosses 10 at 14
      await new Promise((r) => setTimeout(r, 2));
    }
    meter.add(30); // 100: crosses 90 there
    expect(meter.done).toBe(true);
    const r = meter.result();
    // 100 - 14 = 86 messages over the window between the two stamps.
    // (the window is reported rounded to 0.1 ms, hence the 1 % tolerance)
    expect(Math.abs(r.steadyMsgsPerSec - (86 * 1000) / r.steadyWindowMs) / r.steadyMsgsPerSec).toBeLessThan(0.01);
    expect(r.steadyWindowMs).toBeGreaterThan(0);
    expect(r.firstMessageMs).toBeGreaterThanOrEqual(0);
  });
});
