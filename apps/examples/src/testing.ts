import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

// What each example prints, and how a spec runs one: shared by src/examples.spec.ts (the embedded broker) and the
// integration project's real-cluster spec, so both hold every program to the same lines. Not a program itself.

/** The examples app's folder (this file is src/testing.ts or, built, dist/testing.js). */
export const EXAMPLES_DIR = resolve(__dirname, '..');

/** One example program and what its run must show. */
export interface Example {
  /** The program's name: src/<name>.ts, run as `node dist/<name>.js`. */
  readonly name: string;
  /** Whole stdout lines (a string) or line patterns it must print. */
  readonly prints: ReadonlyArray<string | RegExp>;
  /** Lines it must not print (what a filter, a rollback or a tag keeps away). */
  readonly never?: readonly RegExp[];
}

/** Every example program, with its expected output on either transport. */
export const EXAMPLES: readonly Example[] = [
  {
    name: 'consumer',
    prints: ['saved order A-1 (created)', 'saved order A-2 (paid)', 'stopped, drained: true'],
    never: [/A-3/],
  },
  {
    name: 'sql92-filter',
    prints: ['billed invoice I-1 (eu, 150, paid)', 'billed invoice I-4 (eu, 220, refunded)'],
    never: [/I-2|I-3/],
  },
  {
    name: 'transaction',
    prints: [
      'notified payment P-1',
      'sent payment P-2: ROLLBACK_MESSAGE',
      'sent payment P-3: UNKNOW',
      'checked back payment P-3: COMMIT_MESSAGE',
      'notified payment P-3',
    ],
    never: [/notified payment P-2/],
  },
  { name: 'timer-message', prints: [/^reminder R-1 arrived \d+ ms after its send$/] },
  { name: 'request-reply', prints: ['price of A1: 1250 cents', 'price of B2: 399 cents'] },
  {
    name: 'pull-consumer',
    prints: ['read 6 audit entries: E-1, E-2, E-3, E-4, E-5, E-6', /^replayed queue \d+: (E-\d, )*E-1(, E-\d)*$/],
  },
  {
    name: 'metrics-prometheus',
    prints: [
      /^rocketmq_consumed_messages_total\{consumer_group="billing",topic="checkouts",result="success"\} 3$/,
      /^rocketmq_sent_messages_total\{producer_group="checkout",topic="checkouts",kind="send",result="success"\} 3$/,
    ],
  },
  { name: 'nestjs', prints: ['mail to ada@example.org: Welcome!'] },
  {
    name: 'dead-letters',
    prints: [
      'import of line 7 failed, try 1',
      'import of line 7 failed, try 2',
      'dead letter: line 7 (n/a;;), keys line-7',
    ],
    never: [/try 3/],
  },
];

/** The header comment of src/<name>.ts (what it shows, how to run it on each transport), without its `*`s. */
export function exampleHeader(name: string): string {
  const source = readFileSync(join(EXAMPLES_DIR, 'src', `${name}.ts`), 'utf8');
  const header = /^\/\*\*\n([\s\S]*?)\*\/\n/.exec(source)?.[1] ?? '';
  return header
    .split('\n')
    .map((line) => line.replace(/^ \*( |$)/, ''))
    .join('\n');
}

/**
 * This process's environment without what would point a program elsewhere (a cluster, a port, node flags), plus
 * `extra`: the embedded broker unless `extra` names a cluster.
 */
function exampleEnv(extra: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env))
    if (!/^(ROCKETMQ_NAMESRV|NODE_OPTIONS|METRICS_PORT)$|^VITEST/.test(key)) env[key] = value;
  return { ...env, METRICS_PORT: '0', ...extra }; // any free port, so runs side by side do not collide
}

/** How a run of an example ended. */
export interface ExampleRun {
  readonly name: string;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** How to run an example: extra environment (`ROCKETMQ_NAMESRV` for a cluster), and when to kill it. */
export interface RunOptions {
  readonly env?: Readonly<Record<string, string>>;
  /** The run is killed (SIGKILL) after this long; the result then shows the signal. */
  readonly timeoutMs: number;
}

/** Runs the built example as a user does, `node dist/<name>.js` in the app's folder, to its end. */
export function runExample(name: string, options: RunOptions): Promise<ExampleRun> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(EXAMPLES_DIR, 'dist', `${name}.js`)], {
      cwd: EXAMPLES_DIR,
      env: exampleEnv(options.env ?? {}),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('error', fail);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      done({ name, code, signal, stdout, stderr });
    });
  });
}

/**
 * What is wrong with a run, one sentence each; empty when it printed every expected line and no unwanted one,
 * wrote nothing on stderr, and exited 0 by itself.
 */
export function runProblems(example: Example, run: ExampleRun): string[] {
  const lines = run.stdout.split('\n');
  const problems: string[] = [];
  for (const expected of example.prints)
    if (!lines.some((line) => (typeof expected === 'string' ? line === expected : expected.test(line))))
      problems.push(`no line ${typeof expected === 'string' ? JSON.stringify(expected) : expected}`);
  for (const unwanted of example.never ?? [])
    for (const line of lines.filter((l) => unwanted.test(l))) problems.push(`unwanted line ${JSON.stringify(line)}`);
  if (run.stderr !== '') problems.push('output on stderr');
  if (run.code !== 0) problems.push(`ended with ${run.signal ?? `exit code ${run.code}`}`);
  return problems;
}

/** The run's whole output, for a failure message. */
export function describeRun(run: ExampleRun): string {
  const end = run.signal ?? `exit code ${run.code}`;
  return `node dist/${run.name}.js ended with ${end}\n--- stdout ---\n${run.stdout}\n--- stderr ---\n${run.stderr}`;
}
