import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { runSample } from './run-sample';

describe('the sample run', () => {
  it('consumes everything through a join and a leave and counts two rebalances', async () => {
    const lines: string[] = [];
    const summary = await runSample(
      { messages: 3000, instances: 3, size: 64, rate: 3000, namesrv: undefined, progress: true },
      (l) => lines.push(l),
    );
    expect(summary.produced).toBe(3000);
    expect(summary.lost).toBe(0);
    expect(summary.unique).toBe(3000);
    // The sample turns exclusive handoff on: a clean join and a clean leave cause no duplicate delivery.
    expect(summary.consumed).toBe(3000);
    expect(summary.duplicates).toBe(0);
    expect(summary.rebalances).toBeGreaterThanOrEqual(2);
    expect(lines.some((l) => /#4: \d+ consumed/.test(l))).toBe(true);
  }, 60_000);
});
