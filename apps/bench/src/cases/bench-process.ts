import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ensureJavaBench, parseBenchResult } from '../../java/build-java-bench.cjs';
import { log } from './bench-util';
import { activeClientCpus, placeCommand, type CpuRole } from './cpu-placement';
import { javaCollector } from './java-collector';

/**
 * Child processes of the RocketMQ benches: mqkit's side runs a small .cjs script that requires the built dist of
 * @mqkit/core and @mqkit/transport-rocketmq (the real packages), RocketMQ's side a Java program from apps/bench/java.
 * Both print one `RESULT {json}` line last on stdout, with their own VmHWM.
 */

/** Path of a child script kept next to the case sources (tsc does not copy .cjs files into dist). */
export function childScript(name: string): string {
  // dist/cases/ and src/cases/ are both two levels under apps/bench.
  return resolve(__dirname, '..', '..', 'src', 'cases', name);
}

/** A running child whose stdout lines are handed to `onLine` as they come. */
export interface BenchChild {
  readonly process: ChildProcess;
  /**
   * Resolves with the parsed RESULT line (also when the child exited non-zero, e.g. after failed sends: the
   * caller reads `ok`/`failed`); rejects with the child's output when it printed none.
   */
  readonly result: Promise<Record<string, unknown>>;
}

/** Options of a bench child; `cpus` is where it runs when the cluster's CPU placement is active (default: client). */
export interface ChildOptions {
  readonly timeoutMs: number;
  readonly onLine?: (line: string) => void;
  readonly cpus?: CpuRole;
}

function run(command: string, args: readonly string[], options: ChildOptions & { label: string }): BenchChild {
  const placed = placeCommand(command, args, options.cpus);
  const child = spawn(placed.command, placed.args, { stdio: ['ignore', 'pipe', 'pipe'] });
  keepChildOutput(child, options.label);
  let stdout = '';
  let stderr = '';
  let partial = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    stdout = (stdout + text).slice(-200_000);
    if (!options.onLine) return;
    partial += text;
    const lines = partial.split('\n');
    partial = lines.pop()!;
    for (const line of lines) options.onLine(line);
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-20_000)));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
  const result = new Promise<Record<string, unknown>>((resolveResult, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      try {
        resolveResult({ ...parseBenchResult(stdout), exitCode: code });
      } catch {
        reject(
          new Error(
            `${options.label} exited with ${code ?? signal} and no RESULT line:\n${stdout.slice(-3000)}\n${stderr.slice(-3000)}`,
          ),
        );
      }
    });
  });
  return { process: child, result };
}

/**
 * With MQKIT_BENCH_CHILD_LOG=<dir>, every child's whole stdout and stderr go to <dir>/<label>-<pid>.log as well:
 * V8's traces (`--trace-gc`, `--trace-pretenuring` through MQKIT_BENCH_NODE_FLAGS) print on stdout, of which the
 * parent keeps only the tail it parses.
 */
function keepChildOutput(child: ChildProcess, label: string): void {
  const dir = process.env.MQKIT_BENCH_CHILD_LOG;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  const file = createWriteStream(join(dir, `${label.replace(/[^\w.-]+/g, '_')}-${child.pid ?? 'nopid'}.log`));
  child.stdout!.pipe(file, { end: false });
  child.stderr!.pipe(file, { end: false });
  child.on('close', () => file.end());
}

/**
 * Node flags of the Node client processes (mqkit's and the raw client's; the latency case's producer and other
 * load processes never get them), and why. `MQKIT_BENCH_NODE_FLAGS` (space-separated, e.g. `--trace-gc`; `none`
 * for no flags) replaces the default, which is `--single-threaded-gc` while the clients are pinned to one CPU: the
 * JVM picks a collector without helper threads (SerialGC) for a client on one CPU by itself, and V8's helper
 * threads there only take turns with the main thread (java-collector.ts; the trials are in docs/operating.md,
 * "A consumer on one CPU").
 */
function clientNodeSetup(): { readonly flags: string[]; readonly why: string } {
  const set = process.env.MQKIT_BENCH_NODE_FLAGS;
  if (set !== undefined)
    return { flags: set.split(/\s+/).filter((f) => f.length > 0 && f !== 'none'), why: 'MQKIT_BENCH_NODE_FLAGS' };
  if (activeClientCpus() === 1) {
    return {
      flags: ['--single-threaded-gc'],
      why: "the clients have one CPU: V8 like the JVM without GC helper threads; MQKIT_BENCH_NODE_FLAGS=none for V8's defaults",
    };
  }
  return { flags: [], why: "V8's defaults" };
}

export function clientNodeFlags(): string[] {
  return clientNodeSetup().flags;
}

/** The flags last announced as a settings line (each change is announced once, so results files name them). */
let announcedFlags: string | undefined;

/**
 * Runs a child .cjs script with `node`, passing its settings as one JSON argument. A client child (the default
 * role) gets the client flags (clientNodeSetup) unless `nodeFlags` is given; `node` is another Node binary to run it.
 */
export function runNodeChild(
  script: string,
  settings: Record<string, unknown>,
  options: ChildOptions & { readonly nodeFlags?: readonly string[]; readonly node?: string },
): BenchChild {
  let flags = options.nodeFlags ?? [];
  if (options.nodeFlags === undefined && (options.cpus ?? 'client') === 'client') {
    const setup = clientNodeSetup();
    flags = setup.flags;
    const text = flags.length > 0 ? flags.join(' ') : 'no flags';
    if (text !== announcedFlags) {
      announcedFlags = text;
      log(`settings: Node client processes run with node ${text} (${setup.why})`);
    }
  }
  return run(options.node ?? process.execPath, [...flags, childScript(script), JSON.stringify(settings)], {
    ...options,
    label: script,
  });
}

/** Runs a compiled module of this app (a path under dist/, e.g. `cases/pipeline/variant.main.js`) with `node --expose-gc`. */
export function runDistEntry(
  entry: string,
  settings: Record<string, unknown>,
  options: { timeoutMs: number },
): BenchChild {
  return run(process.execPath, ['--expose-gc', resolve(__dirname, '..', entry), JSON.stringify(settings)], {
    ...options,
    label: entry,
  });
}

/** The built Java programs and a runner for them (-Xmx512m, client logs at warn into a temp folder). */
export async function javaRunner(log: (line: string) => void): Promise<{
  run(mainClass: string, args: readonly string[], timeoutMs: number, onLine?: (line: string) => void): BenchChild;
  close(): void;
}> {
  const { classpath } = await ensureJavaBench({ log });
  const logs = mkdtempSync(join(tmpdir(), 'mqkit-bench-java-'));
  const java = process.env.JAVA_HOME ? join(process.env.JAVA_HOME, 'bin', 'java') : 'java';
  // Read at the first run, when the cluster's CPU placement (which decides the JVM's choice) is in force.
  let collectorShown = false;
  return {
    run: (mainClass, args, timeoutMs, onLine) => {
      if (!collectorShown) {
        collectorShown = true;
        log(
          `settings: Java's garbage collector: ${javaCollector(java)} (the JVM's own choice for the client's CPUs at -Xmx512m; see java-collector.ts)`,
        );
      }
      return run(
        java,
        [
          '-Xmx512m',
          `-Drocketmq.log.root=${logs}`,
          '-Drocketmq.log.level=warn',
          '-cp',
          classpath,
          `mqkit.bench.${mainClass}`,
          ...args,
        ],
        { timeoutMs, label: mainClass, onLine },
      );
    },
    close: () => rmSync(logs, { recursive: true, force: true }),
  };
}
