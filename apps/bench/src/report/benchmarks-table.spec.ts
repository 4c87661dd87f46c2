import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { refreshReadme, renderTable } from './readme-table';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function readme(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'mqkit-readme-'));
  dirs.push(dir);
  const path = join(dir, 'README.md');
  writeFileSync(path, text);
  return path;
}

describe('the README performance table', () => {
  it('is rewritten between its markers only, from the results files', () => {
    const start =
      '<!-- bench-table:start (written by `npm run bench -- all` from apps/bench/results; edit the cases, not this table) -->';
    const path = readme(`# Title\n\n${start}\n| stale | row |\n<!-- bench-table:end -->\n\nAfter.\n`);
    refreshReadme(path);
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain('| stale | row |');
    expect(text.startsWith(`# Title\n\n${start}\n${renderTable().table}\n<!-- bench-table:end -->`)).toBe(true);
    expect(text.endsWith('\n\nAfter.\n')).toBe(true);
  });

  it('refuses a README without the markers, naming them', () => {
    const path = readme('# No table here\n');
    expect(() => refreshReadme(path)).toThrow(/bench table markers/);
    expect(readFileSync(path, 'utf8')).toBe('# No table here\n');
  });
});
