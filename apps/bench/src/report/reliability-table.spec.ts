import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { aggregate, type ChaosRun, summarize } from '../chaos/chaos-results';
import type { ResultsFile } from './bench-results';
import {
  RELIABILITY_END,
  RELIABILITY_GUIDE,
  RELIABILITY_START,
  refreshReliabilityTable,
  renderReliability,
} from './reliability-table';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function guide(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'mqkit-reliability-'));
  dirs.push(dir);
  const path = join(dir, 'reliability.md');
  writeFileSync(path, text);
  return path;
}

const run = (o: Partial<ChaosRun>): ChaosRun => ({
  id: 'i',
  scenario: 'member-kill-join',
  mode: 'CONCURRENTLY',
  seed: 1,
  client: 'mqkit',
  acknowledged: 6_000,
  failedSends: 0,
  lost: 0,
  duplicates: 0,
  orderViolations: 0,
  resumeMs: 5,
  deliveredBy: [],
  durationSec: 50,
  timeline: '',
  ...o,
});

function chaosFile(runs: ChaosRun[], seeds: number[]): ResultsFile {
  return {
    case: 'chaos',
    command: 'npm run bench -- chaos --seeds 2',
    finishedAt: '2026-12-05T10:00:00.000Z',
    durationSec: 3_000,
    machine: { cores: 2, cpuModel: 'AMD EPYC', memoryGiB: 24, node: 'v20', java: 'openjdk 17', platform: 'linux x64' },
    settings: [],
    result: { case: 'chaos', ...summarize(runs, seeds.length) },
    detail: {
      seed: seeds[0],
      seeds,
      worseMarginPct: 2,
      scenarios: [
        { id: 'i', title: 'member SIGKILL, then a join' },
        { id: 'storm', title: 'storm at 1,000 msg/s' },
      ],
      variants: aggregate(runs),
      runs,
    },
  };
}

const runs = [
  run({ seed: 1, duplicates: 12 }),
  run({ seed: 1, client: 'java', duplicates: 30 }),
  run({ seed: 2, duplicates: 400 }),
  run({ seed: 2, client: 'java', duplicates: 40 }),
  run({ id: 'storm', scenario: 'storm', mode: 'ORDERLY', seed: 1, orderViolations: 3 }),
  run({ id: 'storm', scenario: 'storm', mode: 'ORDERLY', seed: 1, client: 'java', orderViolations: 7 }),
  run({ id: 'storm', scenario: 'storm', mode: 'ORDERLY', seed: 2, orderViolations: 0 }),
  run({ id: 'storm', scenario: 'storm', mode: 'ORDERLY', seed: 2, client: 'java', orderViolations: 1 }),
];

describe('the reliability table', () => {
  it('has a row per scenario and mode with median · worst of each client, from the results file', () => {
    const text = renderReliability(chaosFile(runs, [1, 2]))!;
    const lines = text.split('\n');
    const row = lines.find((l) => l.startsWith('| i. member SIGKILL, then a join'))!;
    expect(row).toContain('| CONCURRENTLY |');
    expect(row).toContain('| 206 (3.4 %) · 400 (6.7 %) |');
    expect(row).toContain('| 35 (0.6 %) · 40 (0.7 %) |');
    expect(row).toMatch(/\| 1 of 2 +\| 5 ms · 5 ms \/ 5 ms · 5 ms +\|$/);
    const storm = lines.find((l) => l.startsWith('| storm: storm at 1,000 msg/s'))!;
    expect(storm).toMatch(/\| 1.5 · 3 \/ 4 · 7 +\|/);
    expect(text).toContain(
      '`npm run bench -- chaos --seeds 2` (2026-12-05, about 50 min on a 2-core machine; seeds 1, 2',
    );
    expect(text).toContain('duplicates **412** (mqkit) against 70 (Java)');
    // Padded as the formatter writes tables.
    const table = lines.filter((l) => l.startsWith('|'));
    for (const l of table) expect([...l].length).toBe([...table[0]!].length);
  });

  it('is rewritten between its markers only', () => {
    const path = guide(`# R\n\n${RELIABILITY_START}\n| old | table |\n${RELIABILITY_END}\n\nAfter.\n`);
    const said = refreshReliabilityTable(path, chaosFile(runs, [1, 2]));
    expect(said).toMatch(/rewritten/);
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain('| old | table |');
    expect(text).toContain(`${RELIABILITY_START}\n${renderReliability(chaosFile(runs, [1, 2]))}\n${RELIABILITY_END}`);
    expect(text.endsWith('\n\nAfter.\n')).toBe(true);
  });

  it('leaves the guide alone without seeded results: no file, or one written before the seeds', () => {
    const before = `# R\n\n${RELIABILITY_START}\n| old | table |\n${RELIABILITY_END}\n`;
    const path = guide(before);
    expect(refreshReliabilityTable(path, undefined)).toMatch(/left as it is/);
    const { detail: _, ...old } = chaosFile(runs, [1]);
    expect(refreshReliabilityTable(path, old)).toMatch(/left as it is/);
    expect(readFileSync(path, 'utf8')).toBe(before);
    expect(() => refreshReliabilityTable(guide('# none\n'), undefined)).toThrow(/chaos table markers/);
  });

  it('writes into docs/reliability.md by default, which holds the markers', () => {
    const text = readFileSync(RELIABILITY_GUIDE, 'utf8');
    expect(text.indexOf(RELIABILITY_END)).toBeGreaterThan(text.indexOf(RELIABILITY_START));
    expect(text.indexOf(RELIABILITY_START)).toBeGreaterThan(0);
  });
});
