import { describe, expect, it } from 'vitest';
import type { ResultsFile } from './bench-results';
import { compareRerun, describeRerun, rerunNote, trackedFigures } from './rerun';
import { spreadOf } from './run-stats';

const run = (result: Record<string, unknown>, over: Partial<ResultsFile> = {}): ResultsFile => ({
  case: 'latency',
  command: 'npm run bench -- latency',
  finishedAt: '2026-12-02T08:28:38.279Z',
  durationSec: 773,
  machine: {
    cores: 2,
    cpuModel: 'AMD EPYC',
    memoryGiB: 24,
    node: 'v20.20.2',
    java: 'openjdk 17',
    platform: 'linux x64',
  },
  settings: ['settings: one broker', 'settings: cpu placement: CPU 1'],
  result: { case: 'latency', ...result },
  ...over,
});

const rates = (mqkit: number[], java: number[]) => ({
  rates: {
    '1000': { mqkitP99Ms: 3.4, mqkitP99Spread: spreadOf(mqkit), javaP99Spread: spreadOf(java), mqkitP99RunsMs: mqkit },
  },
});

describe('a rerun, compared with the run it replaced', () => {
  it('tracks every Spread of a result by its path, and nothing else', () => {
    const figures = trackedFigures({
      case: 'x',
      ...rates([3, 4, 5], [4, 4, 6]),
      spreads: { raw: spreadOf([10, 12]) },
      list: [spreadOf([1, 2])],
    });
    expect([...figures]).toEqual([
      ['rates.1000.mqkitP99Spread', 4],
      ['rates.1000.javaP99Spread', 4],
      ['spreads.raw', 11],
    ]);
  });

  it('compares each tracked median and counts the figures within 10 %', () => {
    const rerun = compareRerun(
      run(rates([3, 4, 5], [4, 4, 6])),
      run(rates([4.2, 4.3, 5], [5, 5, 5]), { finishedAt: '2026-12-02T14:00:00.000Z' }),
      'earlier/latency-2026-12-02T0828.json',
    );
    expect(rerun).toMatchObject({ against: '2026-12-02T08:28:38.279Z', comparable: true, within: 1, total: 2 });
    expect(rerun.figures!['rates.1000.mqkitP99Spread']).toEqual({
      before: 4,
      after: 4.3,
      difference: 0.075,
      within10pct: true,
    });
    expect(rerun.figures!['rates.1000.javaP99Spread']).toEqual({
      before: 4,
      after: 5,
      difference: 0.25,
      within10pct: false,
    });
    expect(describeRerun(rerun)).toEqual([
      'rerun of the run of 2026-12-02T08:28:38.279Z (kept as earlier/latency-2026-12-02T0828.json): 1 of 2 tracked figures within 10 %',
      '  rates.1000.javaP99Spread: 4 -> 5 (25.0 % apart)',
    ]);
    expect(rerunNote(rerun)).toBe('; rerun of the run of 2026-12-02 08:28: 1 of 2 figures within 10 %');
  });

  it('is no rerun when the command, a settings line or the machine differ, and says which', () => {
    const before = run(rates([3, 4, 5], [4, 4, 6]));
    const after = run(rates([3, 4, 5], [4, 4, 6]), {
      command: 'MQKIT_BENCH_STORE="disk" npm run bench -- latency',
      settings: ['settings: one broker', 'settings: cpu placement: off'],
      machine: { ...before.machine, node: 'v22.0.0' },
    });
    const rerun = compareRerun(before, after, 'earlier/x.json');
    expect(rerun.comparable).toBe(false);
    expect(rerun.figures).toBeUndefined();
    expect(rerun.differences).toEqual([
      'command: npm run bench -- latency -> MQKIT_BENCH_STORE="disk" npm run bench -- latency',
      'settings line gone: settings: cpu placement: CPU 1',
      'settings line new: settings: cpu placement: off',
      'machine node: v20.20.2 -> v22.0.0',
    ]);
    expect(rerunNote(rerun)).toBe('');
    expect(describeRerun(rerun)[0]).toMatch(
      /^not a rerun of the run of 2026-12-02T08:28:38.279Z \(kept as earlier\/x.json\): command: /,
    );
  });

  it('compares runs whose CPUs differ only in detail as different machines, and flags a detail the earlier run did not record', () => {
    const zen4 = run(
      { spreads: { raw: spreadOf([10, 10]) } },
      { machine: { ...run({}).machine, cpuDetail: 'family 25 model 17 stepping 1, 2400 MHz, 1024 KB cache' } },
    );
    const zen5 = run(
      { spreads: { raw: spreadOf([10, 10]) } },
      { machine: { ...run({}).machine, cpuDetail: 'family 26 model 2 stepping 0, 2596 MHz, 1024 KB cache' } },
    );
    expect(compareRerun(zen4, zen5, 'earlier/x.json')).toMatchObject({
      comparable: false,
      differences: [
        'machine cpuDetail: family 25 model 17 stepping 1, 2400 MHz, 1024 KB cache -> family 26 model 2 stepping 0, 2596 MHz, 1024 KB cache',
      ],
    });
    const older = compareRerun(run({ spreads: { raw: spreadOf([10, 10]) } }), zen5, 'earlier/x.json');
    expect(older).toMatchObject({ comparable: true, unrecorded: ['cpuDetail'], within: 1, total: 1 });
    expect(describeRerun(older)[0]).toContain(
      "that run did not record the machine's cpuDetail: it may have run on other hardware",
    );
    expect(rerunNote(older)).toBe(
      '; rerun of the run of 2026-12-02 08:28 (its hardware not recorded): 1 of 1 figures within 10 %',
    );
    expect(compareRerun(zen5, zen5, 'earlier/x.json').unrecorded).toBeUndefined();
  });

  it('leaves out a figure the earlier run did not track', () => {
    const rerun = compareRerun(
      run({ spreads: { raw: spreadOf([10, 10]) } }),
      run({ spreads: { raw: spreadOf([10, 10]), mqkit: spreadOf([9, 9]) } }),
      'earlier/x.json',
    );
    expect(rerun).toMatchObject({ within: 1, total: 1 });
    expect(Object.keys(rerun.figures!)).toEqual(['spreads.raw']);
  });
});
