import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandLine, readAllResults, RESULTS_DIR, runtimeSetup, writeResults, type ResultsFile } from './bench-results';

const file = (name: string): ResultsFile => ({
  case: name,
  command: `npm run bench -- ${name}`,
  finishedAt: '2026-12-02T00:00:00.000Z',
  durationSec: 1,
  machine: { cores: 2, cpuModel: 'x', memoryGiB: 1, node: 'v0', java: 'none', platform: 'linux x64' },
  settings: [],
  result: { case: name },
});

describe('results files', () => {
  it('the recorded command names the measuring switches that were set, and no others', () => {
    expect(commandLine('latency', ['--runs', '2'], {})).toBe('npm run bench -- latency --runs 2');
    const env = { MQKIT_BENCH_STORE: 'disk', MQKIT_BENCH_NODE_FLAGS: '--max-semi-space-size=8', HOME: '/root', MQKIT_BENCH_PIN: '' };
    expect(commandLine('latency', [], env)).toBe('MQKIT_BENCH_NODE_FLAGS="--max-semi-space-size=8" MQKIT_BENCH_STORE="disk" npm run bench -- latency');
  });

  it('reads how the runtimes were set up from the settings lines a run printed', () => {
    const settings = (lines: string[]) => ({ settings: lines });
    expect(
      runtimeSetup(settings(['settings: a case', 'settings: Node client processes run with node --single-threaded-gc (the clients have one CPU)', "settings: Java's garbage collector: SerialGC (the JVM's own choice)"])),
    ).toBe('Node clients on node --single-threaded-gc, Java on SerialGC');
    expect(runtimeSetup(settings(["settings: Node client processes run with node no flags (V8's defaults)"]))).toBe("Node clients on V8's GC defaults");
    expect(runtimeSetup(settings(['settings: an older run']))).toBe('');
  });

  it('writes a trial under results/trials, where the README table never reads it', () => {
    const name = `specTrialCase${process.pid}`;
    const path = writeResults(file(name), 'gc-probe');
    try {
      expect(path).toBe(join(RESULTS_DIR, 'trials', `${name}-gc-probe.json`));
      expect(JSON.parse(readFileSync(path, 'utf8')).case).toBe(name);
      expect(existsSync(join(RESULTS_DIR, `${name}.json`))).toBe(false);
      expect(readAllResults().has(name)).toBe(false);
    } finally {
      rmSync(path, { force: true });
    }
  });

  it('refuses a trial name that is not a plain file name', () => {
    expect(() => writeResults(file('x'), '../latency')).toThrow(/MQKIT_BENCH_TRIAL/);
  });
});
