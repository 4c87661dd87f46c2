import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli';

function run(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = runCli(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

describe('mqkit-allocation simulate', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mqkit-allocation-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('--json prints one JSON document and nothing else', () => {
    const { code, stdout, stderr } = run('simulate', '--json', '--queues', '8', '--steps', '30', '--seed', '5');
    expect(code).toBe(0);
    expect(stderr).toBe('');
    const report = JSON.parse(stdout);
    expect(report.seed).toBe(5);
    expect(new Set(report.scenarios.map((s: { strategy: string }) => s.strategy))).toEqual(
      new Set(['AVG', 'AVG_BY_CIRCLE', 'CONSISTENT_HASH', 'BALANCED_RENDEZVOUS']),
    );
  });

  it('prints a table with its definitions, and --svg writes a chart', () => {
    const file = join(dir, 'chart.svg');
    const { code, stdout } = run('simulate', '--queues', '8,16', '--members', '2-5', '--steps', '30', '--svg', file);
    expect(code).toBe(0);
    expect(stdout).toMatch(/bound: the unavoidable part/);
    expect(stdout).toMatch(/^BALANCED_RENDEZVOUS +16 +5 /m);
    expect(stdout).toContain(`Chart written to ${file}`);
    const svg = readFileSync(file, 'utf8');
    expect(svg).toMatch(
      /^<svg [^>]*>\n<title>Queues moved per join or leave, relative to the unavoidable minimum \(seed \d+\)<\/title>\n/,
    );
    expect(svg).toContain('16 queues on 2 brokers');
    expect(svg.match(/<polyline /g)).toHaveLength(8); // 4 strategies x 2 queue counts
  });

  it('rejects bad arguments with exit code 2 and the usage, and prints help', () => {
    const bad = run('simulate', '--members', '5-3');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--members = "5-3" is invalid; allowed: A-B/);
    expect(bad.stderr).toContain('Usage: mqkit-allocation simulate');
    expect(run('simulate', '--steps', '0').stderr).toMatch(/--steps/);
    expect(run('simulate', '--frobnicate').code).toBe(2);
    expect(run('explode').code).toBe(2);
    expect(run('simulate', '--help')).toMatchObject({ code: 0, stdout: expect.stringContaining('--seed N') });
  });
});
