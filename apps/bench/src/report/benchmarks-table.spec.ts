import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BENCHMARKS_GUIDE, refreshBenchmarksTable, renderTable } from './benchmarks-table';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function guide(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'mqkit-benchmarks-'));
  dirs.push(dir);
  const path = join(dir, 'benchmarks.md');
  writeFileSync(path, text);
  return path;
}

describe('the benchmarks table', () => {
  it('is rewritten between its markers only, from the results files', () => {
    const start =
      '<!-- bench-table:start (written by `npm run bench -- all` from apps/bench/results; edit the cases, not this table) -->';
    const path = guide(`# Title\n\n${start}\n| stale | row |\n<!-- bench-table:end -->\n\nAfter.\n`);
    refreshBenchmarksTable(path);
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain('| stale | row |');
    expect(text.startsWith(`# Title\n\n${start}\n${renderTable().table}\n<!-- bench-table:end -->`)).toBe(true);
    expect(text.endsWith('\n\nAfter.\n')).toBe(true);
  });

  it('pads every column as the formatter does, so a rewritten guide stays formatted', () => {
    const lines = renderTable().table.split('\n');
    expect(lines.length).toBeGreaterThan(2);
    expect(lines[1]).toMatch(/^\| -{4,} \| -+ \| -+ \| -+ \|$/);
    const width = (line: string) => [...line].length;
    for (const line of lines) expect(width(line)).toBe(width(lines[0] ?? ''));
  });

  it('refuses a file without the markers, naming them', () => {
    const path = guide('# No table here\n');
    expect(() => refreshBenchmarksTable(path)).toThrow(/bench table markers/);
    expect(readFileSync(path, 'utf8')).toBe('# No table here\n');
  });

  it('writes into docs/benchmarks.md by default, which holds the markers', () => {
    expect(BENCHMARKS_GUIDE.replace(/\\/g, '/').endsWith('/docs/benchmarks.md')).toBe(true);
    const text = readFileSync(BENCHMARKS_GUIDE, 'utf8');
    expect(text).toContain('<!-- bench-table:start');
    expect(text.indexOf('<!-- bench-table:end -->')).toBeGreaterThan(text.indexOf('<!-- bench-table:start'));
  });
});
