import { describe, expect, it } from 'vitest';
import { aggregate, type ChaosRun, median, summarize, worseSeed } from './chaos-results';

function run(overrides: Partial<ChaosRun>): ChaosRun {
  return {
    id: 'i',
    scenario: 'member-kill-join',
    mode: 'CONCURRENTLY',
    seed: 1,
    client: 'mqkit',
    acknowledged: 1_000,
    failedSends: 0,
    lost: 0,
    duplicates: 0,
    orderViolations: 0,
    resumeMs: 10,
    deliveredBy: [1],
    durationSec: 60,
    timeline: '',
    ...overrides,
  };
}

describe('median', () => {
  it('is the middle value, or the mean of the middle two', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
    expect(median([])).toBe(0);
  });
});

describe('worseSeed', () => {
  it("compares duplicates as shares of each run's own acknowledged messages, with a 2-point margin", () => {
    const java = run({ client: 'java', acknowledged: 2_000, duplicates: 20 }); // 1 %
    expect(worseSeed(run({ acknowledged: 1_000, duplicates: 30 }), java)).toBe(false); // 3 %: 2 points
    expect(worseSeed(run({ acknowledged: 1_000, duplicates: 31 }), java)).toBe(true); // 3.1 %
    expect(worseSeed(run({ acknowledged: 0, duplicates: 0 }), java)).toBe(false);
  });
});

describe('aggregate', () => {
  const seeds = [11, 22, 33, 44, 55];
  const mqkitDuplicates = [0, 40, 3, 0, 7];
  const javaDuplicates = [10, 12, 8, 100, 9];
  const runs: ChaosRun[] = seeds.flatMap((seed, i) => [
    run({ seed, duplicates: mqkitDuplicates[i]!, lost: i === 2 ? 4 : 0, acknowledged: 1_000 + i }),
    run({ seed, client: 'java', duplicates: javaDuplicates[i]!, acknowledged: 1_000 }),
    run({ seed, mode: 'ORDERLY', orderViolations: i, duplicates: 1 }),
    run({ seed, mode: 'ORDERLY', client: 'java', orderViolations: 2 * i }),
  ]);

  it('gives per scenario and mode the median and the worst run of each client', () => {
    const [concurrently, orderly] = aggregate(runs);
    expect(concurrently).toMatchObject({ id: 'i', mode: 'CONCURRENTLY', seeds });
    expect(concurrently!.mqkit).toMatchObject({
      runs: 5,
      lost: { median: 0, worst: 4 },
      duplicates: { median: 3, worst: 40 },
      acknowledged: { median: 1_002, worst: 1_004 },
    });
    expect(concurrently!.mqkit!.duplicatesPct.worst).toBe(4);
    expect(concurrently!.java).toMatchObject({ duplicates: { median: 10, worst: 100 }, lost: { median: 0, worst: 0 } });
    // Order is no promise of CONCURRENTLY: not aggregated there.
    expect(concurrently!.mqkit!.orderViolations).toBeUndefined();
    expect(orderly).toMatchObject({
      mode: 'ORDERLY',
      mqkit: { orderViolations: { median: 2, worst: 4 } },
      java: { orderViolations: { median: 4, worst: 8 } },
    });
  });

  it('counts the seeds in which mqkit had more duplicates than Java by more than 2 % of the acknowledged', () => {
    const [concurrently, orderly] = aggregate(runs);
    // Seed 22: mqkit 40 of 1,001 (4.0 %) against Java 12 of 1,000 (1.2 %). Nowhere else.
    expect(concurrently!.mqkitWorseSeeds).toBe(1);
    expect(orderly!.mqkitWorseSeeds).toBe(0);
  });

  it('pairs the clients by seed, and counts worse seeds only where both ran', () => {
    const [v] = aggregate([run({ seed: 1, duplicates: 500 }), run({ seed: 2, client: 'java' })]);
    expect(v!.seeds).toEqual([]);
    expect(v!.mqkitWorseSeeds).toBe(0);
    expect(v!.mqkit!.runs).toBe(1);
  });

  it('sums the last line over the variants both clients ran; order violations over ORDERLY runs only', () => {
    const oneSided = run({ id: 'v', scenario: 'namesrv-down', duplicates: 1_000, acknowledged: 5 });
    const summary = summarize([...runs, run({ seed: 11, orderViolations: 999 }), oneSided], 5);
    expect(Object.keys(summary)).toEqual([
      'scenarios',
      'seeds',
      'acknowledged',
      'mqkitLost',
      'javaLost',
      'mqkitDuplicates',
      'javaDuplicates',
      'mqkitWorseSeeds',
      'mqkitOrderViolations',
      'javaOrderViolations',
    ]);
    expect(summary).toEqual({
      scenarios: 2,
      seeds: 5,
      acknowledged: 5_010 + 5_000 + 5_000 + 5_000 + 1_000,
      mqkitLost: 4,
      javaLost: 0,
      mqkitDuplicates: 50 + 5 + 0,
      javaDuplicates: 139,
      mqkitWorseSeeds: 1,
      mqkitOrderViolations: 10,
      javaOrderViolations: 20,
    });
  });
});
