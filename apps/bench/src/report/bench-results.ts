import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { compareRerun, type Rerun } from './rerun';

/**
 * Results files of `npm run bench`: one JSON file per case under apps/bench/results/, committed, so every figure
 * the docs quote can be traced to the run and the command that produced it, and to the machine it ran on.
 */

/** Where results files live: apps/bench/results (dist/report and src/report are both two levels under apps/bench). */
export const RESULTS_DIR = resolve(__dirname, '..', '..', 'results');

export interface MachineDescription {
  readonly cores: number;
  readonly cpuModel: string;
  readonly memoryGiB: number;
  readonly node: string;
  /** `java -version`'s first line, or 'not found'. */
  readonly java: string;
  readonly platform: string;
  /**
   * The CPU's identity beyond its brand name, from /proc/cpuinfo: family, model, stepping, clock and cache
   * ("family 26 model 2 stepping 0, 2596 MHz, 1024 KB cache"). A VM's "AMD EPYC" names several generations, and a
   * rerun on another one is no rerun. Absent from files written before 2026-12-02 14:00, and off Linux.
   */
  readonly cpuDetail?: string;
}

let cachedJava: string | undefined;

/** The machine a run measured: cores, CPU model, memory, and the Node.js and Java versions. */
export function describeMachine(): MachineDescription {
  if (cachedJava === undefined) {
    const java = process.env.JAVA_HOME ? join(process.env.JAVA_HOME, 'bin', 'java') : 'java';
    const probe = spawnSync(java, ['-version'], { encoding: 'utf8', timeout: 30_000 });
    cachedJava = probe.error ? 'not found' : (probe.stderr || probe.stdout).split('\n')[0]!.trim();
  }
  const cpu = cpus();
  const detail = cpuDetail();
  return {
    cores: cpu.length,
    cpuModel: cpu[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round(totalmem() / 1024 ** 3),
    node: process.version,
    java: cachedJava,
    platform: `${process.platform} ${process.arch}`,
    ...(detail ? { cpuDetail: detail } : {}),
  };
}

let cachedCpuDetail: string | undefined;

function cpuDetail(): string | undefined {
  if (cachedCpuDetail === undefined) {
    let text = '';
    try {
      text = readFileSync('/proc/cpuinfo', 'utf8');
    } catch {
      // Not Linux: the brand name is all there is.
    }
    cachedCpuDetail = describeCpuInfo(text);
  }
  return cachedCpuDetail || undefined;
}

/** The first processor's family, model, stepping, clock and cache from /proc/cpuinfo's text ('' when it has none). */
export function describeCpuInfo(cpuinfo: string): string {
  const first = cpuinfo.split(/\n\s*\n/)[0] ?? '';
  const field = (name: string): string | undefined =>
    new RegExp(`^${name}\\s*:\\s*(.+)$`, 'm').exec(first)?.[1]?.trim();
  const id = [
    ['family', field('cpu family')],
    ['model', field('model')],
    ['stepping', field('stepping')],
  ]
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k} ${v}`);
  const mhz = field('cpu MHz');
  const cache = field('cache size');
  return [id.join(' '), mhz && `${Math.round(Number(mhz))} MHz`, cache && `${cache} cache`].filter((p) => p).join(', ');
}

/** One case's results file. */
export interface ResultsFile {
  readonly case: string;
  /** The command that produced it, as typed at the repository root. */
  readonly command: string;
  readonly finishedAt: string;
  readonly durationSec: number;
  readonly machine: MachineDescription;
  /** The settings line(s) the case printed. */
  readonly settings: readonly string[];
  /** What the case printed as its last JSON line. */
  readonly result: Record<string, unknown>;
  /** What the case keeps beyond its last line (RESULT_DETAIL), e.g. chaos's figures per scenario, mode and seed. */
  readonly detail?: Record<string, unknown>;
  /** Set when this run replaced an earlier results file: how its tracked figures compare with that run's (rerun.ts). */
  readonly rerun?: Rerun;
}

/**
 * The environment switches that change what a run measures: a results file's command names the ones that were set,
 * so the command reruns the same thing.
 */
export const MEASURING_ENV = [
  'MQKIT_BENCH_TRIAL',
  'MQKIT_BENCH_NODE_FLAGS',
  'MQKIT_BENCH_STORE',
  'MQKIT_BENCH_PIN',
] as const;

/** The command line a results file records: the measuring switches that were set, then the npm command. */
export function commandLine(
  caseName: string,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  const set = MEASURING_ENV.flatMap((k) => (env[k] ? [`${k}=${JSON.stringify(env[k])}`] : []));
  return [...set, `npm run bench -- ${[caseName, ...args].join(' ')}`].join(' ');
}

/**
 * How the clients' runtimes were set up, read from a results file's settings lines: the Node flags of the Node
 * clients and the JVM's collector (e.g. "Node clients on node --single-threaded-gc, Java on SerialGC"); '' for a file
 * from before those lines were printed.
 */
export function runtimeSetup(file: Pick<ResultsFile, 'settings'>): string {
  const find = (re: RegExp): string | undefined =>
    file.settings.map((line) => re.exec(line)?.[1]).find((v) => v !== undefined);
  const node = find(/^settings: Node client processes run with node (.+?) \(/);
  const java = find(/^settings: Java's garbage collector: (\S+)/);
  const parts = [
    node === undefined
      ? undefined
      : node === 'no flags'
        ? "Node clients on V8's GC defaults"
        : `Node clients on node ${node}`,
    java && `Java on ${java}`,
  ];
  return parts.filter((p) => p !== undefined).join(', ');
}

/** runtimeSetup in brackets, for a table row's "what is measured" (nothing for an older file). */
export function runtimeNote(file: Pick<ResultsFile, 'settings'>): string {
  const setup = runtimeSetup(file);
  return setup === '' ? '' : ` (${setup})`;
}

/**
 * Writes a case's results file. With `trial` (MQKIT_BENCH_TRIAL=<name>) it goes to results/trials/<case>-<name>.json
 * instead: a diagnosis run (other flags, one side) whose figures the docs may quote, which the table never reads.
 *
 * A file it replaces is kept under `earlier/` beside it, named by that run's finish time, and the new file records
 * how its figures compare with the replaced run's (`rerun`): the table's figures stay traceable to every run, and a
 * rerun with the same settings says whether the figures repeated.
 */
export function writeResults(file: ResultsFile, trial?: string): { path: string; rerun?: Rerun } {
  if (trial !== undefined && !/^[\w.-]+$/.test(trial))
    throw new Error(`MQKIT_BENCH_TRIAL must be a plain name (letters, digits, . _ -), got ${JSON.stringify(trial)}`);
  const dir = trial === undefined ? RESULTS_DIR : join(RESULTS_DIR, 'trials');
  mkdirSync(dir, { recursive: true });
  const name = trial === undefined ? file.case : `${file.case}-${trial}`;
  const path = join(dir, `${name}.json`);
  const rerun = existsSync(path) ? keepReplaced(path, dir, name, file) : undefined;
  writeFileSync(path, `${JSON.stringify(rerun ? { ...file, rerun } : file, null, 2)}\n`);
  return rerun ? { path, rerun } : { path };
}

/** Moves the file at `path` to <dir>/earlier/<name>-<its finish, 2026-12-02T0828>.json and compares `file` with it. */
function keepReplaced(path: string, dir: string, name: string, file: ResultsFile): Rerun {
  const previous = JSON.parse(readFileSync(path, 'utf8')) as ResultsFile;
  const stamp = String(previous.finishedAt).slice(0, 16).replace(':', '');
  const earlier = join(dir, 'earlier');
  mkdirSync(earlier, { recursive: true });
  let kept = join(earlier, `${name}-${stamp}.json`);
  for (let n = 2; existsSync(kept); n++) kept = join(earlier, `${name}-${stamp}-${n}.json`);
  renameSync(path, kept);
  return compareRerun(previous, file, relative(RESULTS_DIR, kept));
}

/** Every results file there is, by case name. */
export function readAllResults(): Map<string, ResultsFile> {
  const out = new Map<string, ResultsFile>();
  let names: string[] = [];
  try {
    names = readdirSync(RESULTS_DIR).filter((n) => n.endsWith('.json'));
  } catch {
    return out;
  }
  for (const name of names) {
    const file = JSON.parse(readFileSync(join(RESULTS_DIR, name), 'utf8')) as ResultsFile;
    out.set(file.case, file);
  }
  return out;
}
