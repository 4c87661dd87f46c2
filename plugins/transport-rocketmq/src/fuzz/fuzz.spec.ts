import { describe, expect, it } from 'vitest';
import { runFuzz } from './fuzz-runner';

/** The fixed seed of the `npm test` run; `npm run fuzz -- --count 1000000 --seed N` explores others. */
export const SPEC_SEED = 20251129;

describe('decoder fuzzing', () => {
  it('decodes 100,000 mutated frames, records, batches and fastjson bodies with only typed errors', () => {
    const report = runFuzz({ seed: SPEC_SEED, count: 100_000 });
    expect(report.failures).toEqual([]);
    expect(report.accepted + report.typedErrors).toBe(100_000);
    // Both outcomes must be common, or the mutations are too weak (all accepted) or too blunt (all rejected).
    expect(report.accepted).toBeGreaterThan(10_000);
    expect(report.typedErrors).toBeGreaterThan(30_000);
    expect(report.maxInputMs).toBeLessThan(2000);
  }, 60_000);
});
