import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  commandLine,
  describeCpuInfo,
  readAllResults,
  RESULTS_DIR,
  runtimeSetup,
  writeResults,
  type ResultsFile,
} from './bench-results';

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
    const env = {
      MQKIT_BENCH_STORE: 'disk',
      MQKIT_BENCH_NODE_FLAGS: '--max-semi-space-size=8',
      HOME: '/root',
      MQKIT_BENCH_PIN: '',
    };
    expect(commandLine('latency', [], env)).toBe(
      'MQKIT_BENCH_NODE_FLAGS="--max-semi-space-size=8" MQKIT_BENCH_STORE="disk" npm run bench -- latency',
    );
  });

  it('reads how the runtimes were set up from the settings lines a run printed', () => {
    const settings = (lines: string[]) => ({ settings: lines });
    expect(
      runtimeSetup(
        settings([
          'settings: a case',
          'settings: Node client processes run with node --single-threaded-gc (the clients have one CPU)',
          "settings: Java's garbage collector: SerialGC (the JVM's own choice)",
        ]),
      ),
    ).toBe('Node clients on node --single-threaded-gc, Java on SerialGC');
    expect(runtimeSetup(settings(["settings: Node client processes run with node no flags (V8's defaults)"]))).toBe(
      "Node clients on V8's GC defaults",
    );
    expect(runtimeSetup(settings(['settings: an older run']))).toBe('');
  });

  it("names the CPU by family, model, stepping, clock and cache from /proc/cpuinfo's first processor", () => {
    const processor = (n: number, mhz: string) =>
      `processor\t: ${n}\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\nmodel name\t: AMD EPYC\nstepping\t: 0\ncpu MHz\t\t: ${mhz}\ncache size\t: 1024 KB\nflags\t\t: fpu vme\n`;
    expect(describeCpuInfo(`${processor(0, '2596.122')}\n${processor(1, '3100.000')}`)).toBe(
      'family 26 model 2 stepping 0, 2596 MHz, 1024 KB cache',
    );
    expect(describeCpuInfo('processor\t: 0\nmodel name\t: ARMv8\n')).toBe('');
    expect(describeCpuInfo('')).toBe('');
  });

  it('writes a trial under results/trials, where the benchmarks table never reads it', () => {
    const name = `specTrialCase${process.pid}`;
    const { path } = writeResults(file(name), 'gc-probe');
    try {
      expect(path).toBe(join(RESULTS_DIR, 'trials', `${name}-gc-probe.json`));
      expect(JSON.parse(readFileSync(path, 'utf8')).case).toBe(name);
      expect(existsSync(join(RESULTS_DIR, `${name}.json`))).toBe(false);
      expect(readAllResults().has(name)).toBe(false);
    } finally {
      rmSync(path, { force: true });
    }
  });

  it('keeps the file a run replaces under earlier/, named by its finish, and records the new run as its rerun', () => {
    const name = `specRerunCase${process.pid}`;
    const earlier = join(RESULTS_DIR, 'trials', 'earlier');
    const spread = (median: number) => ({
      runs: 3,
      median,
      spread: 0,
      halves: [median, median],
      rerunDifference: 0,
      within10pct: true,
    });
    const first = { ...file(name), result: { case: name, spreads: { raw: spread(100) } } };
    const second = {
      ...first,
      finishedAt: '2026-12-02T09:30:00.000Z',
      result: { case: name, spreads: { raw: spread(120) } },
    };
    const paths: string[] = [];
    try {
      paths.push(writeResults(first, 'rerun').path);
      expect(writeResults(first, 'rerun').rerun).toMatchObject({ comparable: true, within: 1, total: 1 });
      const replaced = writeResults(second, 'rerun');
      const kept = readdirSync(earlier)
        .filter((n) => n.startsWith(`${name}-rerun-`))
        .sort();
      paths.push(...kept.map((n) => join(earlier, n)));
      // The first file was replaced twice, both times from a run that finished at 00:00: the second keeps both.
      expect(kept).toEqual([`${name}-rerun-2026-12-02T0000-2.json`, `${name}-rerun-2026-12-02T0000.json`]);
      expect(replaced.rerun).toMatchObject({
        against: first.finishedAt,
        keptAs: join('trials', 'earlier', kept[0]!),
        comparable: true,
        within: 0,
        total: 1,
      });
      expect(JSON.parse(readFileSync(replaced.path, 'utf8')).rerun.figures['spreads.raw']).toEqual({
        before: 100,
        after: 120,
        difference: 0.2,
        within10pct: false,
      });
    } finally {
      for (const p of paths) rmSync(p, { force: true });
    }
  });

  it('refuses a trial name that is not a plain file name', () => {
    expect(() => writeResults(file('x'), '../latency')).toThrow(/MQKIT_BENCH_TRIAL/);
  });
});
