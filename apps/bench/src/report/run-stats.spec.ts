import { describe, expect, it } from 'vitest';
import { percentile, spreadOf, steadyMarks, steadyRate } from './run-stats';
import { SteadyMeter } from './steady-meter';

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

  it('spread is (max - min) / median, and one run proves no repeatability', () => {
    expect(spreadOf([100, 105, 95])).toEqual({ runs: 3, median: 100, spread: 0.1, within10pct: true });
    expect(spreadOf([100, 112, 100]).within10pct).toBe(false);
    expect(spreadOf([100]).within10pct).toBe(false);
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
