import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// Each example is run as a user runs it, `node dist/<name>.js` after the build, on the embedded broker: it must
// do its thing, print what it says it prints, and exit 0 by itself.

const APP = resolve(__dirname, '..');
const ROOT = resolve(APP, '..', '..');

interface Example {
  readonly name: string;
  /** Whole stdout lines (a string) or line patterns it must print. */
  readonly prints: ReadonlyArray<string | RegExp>;
  /** Lines it must not print (what a filter, a rollback or a tag keeps away). */
  readonly never?: readonly RegExp[];
}

const EXAMPLES: readonly Example[] = [
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

/** This run's environment without what would point a program elsewhere: a cluster, a port, node flags. */
function exampleEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env))
    if (!/^(ROCKETMQ_NAMESRV|NODE_OPTIONS|METRICS_PORT)$|^VITEST/.test(key)) env[key] = value;
  return { ...env, METRICS_PORT: '0' }; // any free port, so runs side by side do not collide
}

interface Run {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a built example to its end; kills it after `timeoutMs` (the result then shows SIGKILL). */
function run(name: string, timeoutMs: number): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(APP, 'dist', `${name}.js`)], {
      cwd: APP,
      env: exampleEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', fail);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, stdout, stderr });
    });
  });
}

const describeRun = (name: string, r: Run) =>
  `node dist/${name}.js ended with ${r.signal ?? `exit code ${r.code}`}\n--- stdout ---\n${r.stdout}\n--- stderr ---\n${r.stderr}`;

describe('the examples, each run on the embedded broker', () => {
  it.each(EXAMPLES.map((example) => [example.name, example] as const))(
    '%s prints what it shows and exits 0 by itself',
    async (name, example) => {
      const result = await run(name, 60_000);
      const lines = result.stdout.split('\n');
      for (const expected of example.prints) {
        const found = lines.some((line) => (typeof expected === 'string' ? line === expected : expected.test(line)));
        expect(found, `no line ${expected}\n${describeRun(name, result)}`).toBe(true);
      }
      for (const unwanted of example.never ?? [])
        expect(
          lines.filter((line) => unwanted.test(line)),
          describeRun(name, result),
        ).toEqual([]);
      expect(result.stderr, describeRun(name, result)).toBe('');
      expect(result.code, describeRun(name, result)).toBe(0);
    },
    90_000,
  );
});

describe('the examples, as a user copies them', () => {
  const programs = readdirSync(join(APP, 'src'))
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts'))
    .map((file) => file.slice(0, -'.ts'.length))
    .sort();

  it('are all run above', () => {
    expect(programs).toEqual(EXAMPLES.map((example) => example.name).sort());
  });

  it.each(programs)('%s says what it shows and how to run it on each transport, and names its guide', (name) => {
    const source = readFileSync(join(APP, 'src', `${name}.ts`), 'utf8');
    const header = /^\/\*\*\n([\s\S]*?)\*\/\n/.exec(source)?.[1] ?? '';
    expect(header, 'a header comment first').not.toBe('');
    expect(header).toContain(`node dist/${name}.js`);
    expect(header).toMatch(new RegExp(`ROCKETMQ_NAMESRV=\\S+ node dist/${name}\\.js`));
    expect(header).toMatch(/mqadmin updateTopic .* -t \S+/);
    const guide = /Guide: (\S+\.md)/.exec(header)?.[1];
    expect(guide, 'a "Guide: <page>.md" line').toBeDefined();
    expect(existsSync(join(ROOT, guide!)), `${guide} is a page of the repository`).toBe(true);
  });

  it.each(programs)('%s imports packages by name, as an app does (no relative paths)', (name) => {
    const source = readFileSync(join(APP, 'src', `${name}.ts`), 'utf8');
    const specifiers = [...source.matchAll(/^import (?:[^'"]+ from )?'([^']+)';$/gm)].map((m) => m[1]);
    expect(specifiers.length).toBeGreaterThan(0);
    expect(specifiers.filter((s) => s?.startsWith('.'))).toEqual([]);
    expect(specifiers).toContain('reflect-metadata');
  });
});
