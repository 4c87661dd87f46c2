import { waitFor } from '@mqkit/core/testing';
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';

const main = resolve(__dirname, '../../../apps/sample-nest/dist/main.js');

interface Run {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  stdout: string;
  stderr: string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

let running: Run | undefined;
afterEach(() => {
  if (running && running.child.exitCode === null && running.child.signalCode === null) running.child.kill('SIGKILL');
  running = undefined;
});

function start(args: string[]): Run {
  const child = spawn(process.execPath, [main, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const run: Run = {
    child,
    stdout: '',
    stderr: '',
    exited: new Promise((done, fail) => {
      child.on('error', fail);
      child.on('close', (code, signal) => done({ code, signal }));
    }),
  };
  child.stdout.on('data', (d) => (run.stdout += d));
  child.stderr.on('data', (d) => (run.stderr += d));
  running = run;
  return run;
}

function summaryOf(stdout: string): Record<string, unknown> {
  const lines = stdout.split('\n').filter((l) => l !== '');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

describe('npm run start:nest (the built NestJS sample)', () => {
  it('runs orders through two consumer providers and the injected producer, prints one summary, exits 0 with nothing lost', async () => {
    const run = start(['--messages', '1500', '--no-progress']);
    const { code } = await run.exited;
    const summary = summaryOf(run.stdout);
    expect(Object.keys(summary)).toEqual([
      'produced',
      'billed',
      'shipments',
      'unique',
      'duplicates',
      'lost',
      'committed',
      'drained',
      'elapsedMs',
    ]);
    expect(summary).toMatchObject({
      produced: 1500,
      billed: 1500,
      unique: 1500,
      lost: 0,
      committed: 1500,
      drained: true,
    });
    expect(summary.duplicates).toBe((summary.shipments as number) - 1500);
    expect(run.stderr).toMatch(/produced 1500 orders/);
    expect(code).toBe(0);
  }, 60_000);

  it('--serve consumes until SIGTERM; Nest shutdown hooks drain the running handlers and commit exactly what they finished', async () => {
    const run = start(['--serve', '--messages', '4000', '--work-ms', '40', '--no-progress']);
    await waitFor(() => run.stderr.includes('produced 4000 orders'), { timeoutMs: 30_000, message: () => run.stderr });
    run.child.kill('SIGTERM');
    const { signal } = await run.exited;
    expect(signal).toBe('SIGTERM'); // Nest re-raises the signal once its shutdown hooks ran
    const summary = summaryOf(run.stdout);
    expect(summary.drained).toBe(true);
    expect(summary.billed).toBeGreaterThan(0);
    expect(summary.billed).toBeLessThan(4000); // stopped mid-run
    // Every finished handler call was committed, and nothing unfinished was: no message is skipped on restart.
    expect(summary.committed).toBe(summary.billed);
    expect(run.stderr).toMatch(/SIGTERM received; consumers drained: true/);
  }, 60_000);

  it('rejects a bad flag with usage and exit code 2', async () => {
    const run = start(['--messages', 'many']);
    const { code } = await run.exited;
    expect(code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/usage: npm run start:nest/);
  }, 30_000);
});
