import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const main = resolve(__dirname, '../../../apps/sample/dist/main.js');

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [main, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

describe('npm start (the built sample)', () => {
  it('prints exactly one JSON summary on stdout and exits 0 with nothing lost', async () => {
    const { code, stdout, stderr } = await run(['--messages', '4000', '--rate', '4000']);
    const lines = stdout.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(1);
    const summary = JSON.parse(lines[0]!);
    expect(Object.keys(summary)).toEqual([
      'produced',
      'consumed',
      'unique',
      'duplicates',
      'lost',
      'rebalances',
      'elapsedMs',
    ]);
    // Exclusive handoff is on in the sample: the join and the leave cause no duplicate delivery.
    expect(summary).toMatchObject({ produced: 4000, consumed: 4000, unique: 4000, duplicates: 0, lost: 0 });
    expect(summary.rebalances).toBeGreaterThanOrEqual(2);
    expect(stderr).toMatch(/produced \d+\/4000/);
    expect(code).toBe(0);
  }, 60_000);

  it('rejects a bad flag with usage and exit code 2', async () => {
    const { code, stdout, stderr } = await run(['--instances', '0']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/usage: npm start/);
  }, 30_000);
});
