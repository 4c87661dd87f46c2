import { rm } from 'node:fs/promises';
import { basename } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appEnv } from './app-env';
import { concurrencyLimit } from './concurrency-limit';
import { EXPECTED_ORDERS, allOrdersHandled, orderIds } from './order-lines';
import { packedPackages } from './packed';
import { type CommandResult, describeRun, killRunningCommands } from './run-command';
import { killLeftovers, startAndWaitFor } from './run-until-output';
import {
  type AppCompiler,
  type AppPlan,
  type InstalledApp,
  type TypeScriptChoice,
  compileApp,
  createApp,
  makeAppDir,
  runAppVitest,
} from './smoke-app';
import { TYPESCRIPT_FLOOR, workspaceToolVersion } from './toolchain-versions';

// Fresh apps outside the workspace install the packed tarballs with the README's install line, compile the
// README's quickstart against the published types and run it on the embedded broker. Together they cover CJS and
// ESM, the oldest and newest supported tsyringe/reflect-metadata/rxjs, the TypeScript floor and the workspace's
// compiler, and an app whose vitest is of another major.
const APPS: readonly AppPlan[] = [
  // Both ends of ioredis too, through the Redis store: its declarations are checked against each.
  {
    name: 'cjs-oldest',
    moduleType: 'commonjs',
    shared: 'oldest',
    typescripts: ['floor', 'workspace'],
    extraPackages: ['@mqkit/offset-store-redis'],
  },
  {
    name: 'esm-newest',
    moduleType: 'module',
    shared: 'newest',
    typescripts: ['floor', 'workspace'],
    extraPackages: ['@mqkit/offset-store-redis'],
  },
  {
    name: 'cjs-other-vitest',
    moduleType: 'commonjs',
    shared: 'newest',
    typescripts: ['workspace'],
    otherVitest: true,
    extraPackages: ['@mqkit/offset-store-file'],
  },
];

/** An install can wait for a slot behind another one; a cold npm cache on a slow link takes minutes. */
const INSTALL_TIMEOUT_MS = 900_000;
const COMPILE_TIMEOUT_MS = 300_000;
/** Generous: the box has two cores shared with the other tests' servers. */
const RUN_TIMEOUT_MS = 120_000;

const fileStarted = Date.now();
const limit = concurrencyLimit(2);
const dirs: string[] = [];
const installs = new Map<string, Promise<InstalledApp>>();
const compiles = new Map<string, Promise<CommandResult>>();
const timings: string[] = [];

function timed<T>(label: string, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  return work().finally(() => timings.push(`${label}: ${((Date.now() - started) / 1000).toFixed(1)} s`));
}

/** Quiet a promise whose rejection a test reports later (an unobserved rejection would fail the whole run). */
function observed<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

beforeAll(() => {
  const packed = packedPackages();
  for (const plan of APPS) {
    const install = limit(async () => {
      const dir = await makeAppDir(plan);
      dirs.push(dir);
      return timed(`${plan.name} install`, () => createApp(plan, packed, dir));
    });
    installs.set(plan.name, observed(install));
  }
});

afterAll(async () => {
  // A test that timed out leaves its npm, tsc or program running; end them before removing their directories.
  killLeftovers();
  killRunningCommands();
  await Promise.allSettled([...installs.values(), ...compiles.values()]);
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  timings.push(`whole file: ${((Date.now() - fileStarted) / 1000).toFixed(1)} s`);
  console.log(`[packaging] ${timings.join('; ')}`);
}, 120_000);

/** The app for a test that needs it installed; the install's own test reports why it is not. */
async function installed(plan: AppPlan): Promise<InstalledApp> {
  try {
    return await installs.get(plan.name)!;
  } catch {
    throw new Error(`not run: the ${plan.name} app did not install (its "installs" test has the npm output)`);
  }
}

function compiled(app: InstalledApp, compiler: AppCompiler): Promise<CommandResult> {
  const key = `${app.plan.name}/${compiler.choice}`;
  let run = compiles.get(key);
  if (!run) {
    run = observed(timed(`${key} tsc ${compiler.version}`, () => compileApp(app, compiler)));
    compiles.set(key, run);
  }
  return run;
}

const describeCompiler = (choice: TypeScriptChoice): string =>
  choice === 'floor'
    ? `the floor (typescript ${TYPESCRIPT_FLOOR})`
    : `the workspace's (typescript ${workspaceToolVersion('typescript')})`;

describe.each(APPS.map((plan) => [plan.name, plan] as const))('%s app', (_name, plan) => {
  it(
    "installs the README's install line from the tarballs and the npm registry",
    async () => {
      const app = await installs.get(plan.name)!;
      const versions = Object.entries(app.shared).map(([name, c]) => `${name}@${c!.version}`);
      timings.push(
        `${plan.name}: ${versions.join(' ')}${app.vitest ? ` vitest@${app.vitest}` : ''} ` +
          `typescript ${app.compilers.map((c) => c.version).join('+')} (install list from ${app.install.listSource})`,
      );
      expect(app.install.result.code).toBe(0);
    },
    INSTALL_TIMEOUT_MS,
  );

  it(
    'loads one copy each of @mqkit/core and of the libraries it shares with mqkit: its own',
    async () => {
      const app = await installed(plan);
      const copies = Object.fromEntries(
        ['@mqkit/core', ...Object.keys(app.shared)].map((name) => [
          name,
          (app.copies.get(name) ?? []).map((c) => `${c.path}@${c.version}`),
        ]),
      );
      // Two copies of tsyringe are two registries: @injectable() in the app registers where mqkit never reads.
      const notOnce = Object.fromEntries(Object.entries(copies).filter(([, list]) => list.length !== 1));
      expect(notOnce, 'packages installed other than exactly once').toEqual({});
      for (const [name, choice] of Object.entries(app.shared)) {
        const own = app.copies.get(name)?.find((c) => c.path === `node_modules/${name}`);
        expect(own?.version, `${name}: the app's own version`).toBe(choice!.version);
      }
    },
    INSTALL_TIMEOUT_MS,
  );

  it(
    'took every @mqkit package from the tarballs, none from a registry',
    async () => {
      const app = await installed(plan);
      const packed = new Set(packedPackages().map((p) => basename(p.tarball)));
      const foreign = [...app.copies.entries()]
        .filter(([name]) => name.startsWith('@mqkit/'))
        .flatMap(([, list]) => list)
        .filter((c) => !c.resolved?.startsWith('file:') || !packed.has(basename(c.resolved)))
        .map((c) => `${c.path} from ${c.resolved ?? 'the registry'}`);
      expect(foreign).toEqual([]);
    },
    INSTALL_TIMEOUT_MS,
  );

  it.each(plan.typescripts.map((choice) => [describeCompiler(choice), choice] as const))(
    'compiles the quickstart, the shared-container program and every entry point with %s compiler',
    async (_label, choice) => {
      const app = await installed(plan);
      const compiler = app.compilers.find((c) => c.choice === choice)!;
      const result = await compiled(app, compiler);
      expect(result.code, `tsc ${compiler.version}: ${describeRun(result)}`).toBe(0);
    },
    INSTALL_TIMEOUT_MS + COMPILE_TIMEOUT_MS,
  );

  for (const program of ['quickstart', 'shared-container'] as const) {
    it(
      `runs the ${program} program on the embedded broker, and it exits 0 on SIGTERM`,
      async () => {
        const app = await installed(plan);
        const compiler = app.compilers.find((c) => c.choice === 'workspace')!;
        // Type errors fail the compile test; tsc still emits, so the program can show its runtime behaviour.
        await compiled(app, compiler);
        const running = await startAndWaitFor(process.execPath, [`dist/workspace/${program}.js`], {
          cwd: app.dir,
          env: appEnv(),
          until: allOrdersHandled,
          awaiting: `a line per order ${EXPECTED_ORDERS.join(', ')}`,
          timeoutMs: RUN_TIMEOUT_MS,
        });
        const exit = await running.stop('SIGTERM');
        const context = describeRun(exit);
        expect({ code: exit.code, signal: exit.signal }, context).toEqual({ code: 0, signal: null });
        expect(orderIds(exit.stdout.split('\n')).sort(), context).toEqual([...EXPECTED_ORDERS]);
      },
      INSTALL_TIMEOUT_MS + COMPILE_TIMEOUT_MS + RUN_TIMEOUT_MS,
    );
  }

  if (plan.otherVitest) {
    it(
      "passes the OffsetStore contract on the file store, run by the app's own vitest",
      async () => {
        const app = await installed(plan);
        const { result, report } = await timed(`${plan.name} vitest ${app.vitest}`, () => runAppVitest(app));
        expect(result.output, 'the app ran its own vitest').toContain(`v${app.vitest}`);
        expect(report.numFailedTests).toBe(0);
        expect(report.numPassedTests).toBe(report.numTotalTests);
        expect(report.numPassedTests).toBeGreaterThan(0);
      },
      INSTALL_TIMEOUT_MS + RUN_TIMEOUT_MS,
    );
  }
});
