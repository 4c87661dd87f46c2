import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appEnv } from './app-env';
import { type InstalledCopy, installedCopies } from './installed-tree';
import type { PackedPackage } from './pack-packages';
import { readmeInstallLine, readmeQuickstart, readmeTsconfig } from './readme-snippets';
import { oldestAndNewest } from './registry-versions';
import { type CommandResult, runChecked, runCommand } from './run-command';
import { type RangeConstraint, SHARED_LIBRARIES, rangeConstraints } from './shared-libraries';
import { TYPESCRIPT_FLOOR, newestOf, otherVitestVersion, workspaceToolVersion } from './toolchain-versions';

/** Which TypeScript compiles an app: the supported floor, or the workspace's own compiler. */
export type TypeScriptChoice = 'floor' | 'workspace';

/** One throwaway app: what it is made of before the README's install line runs in it. */
export interface AppPlan {
  readonly name: string;
  readonly moduleType: 'commonjs' | 'module';
  /** The app's own tsyringe, reflect-metadata and rxjs: the oldest or the newest the packages allow. */
  readonly shared: 'oldest' | 'newest';
  readonly typescripts: readonly TypeScriptChoice[];
  /** The app has its own vitest, of an older major than the workspace's, and runs a contract spec with it. */
  readonly otherVitest?: boolean;
  /** mqkit packages the app installs besides the README's (with the same `npm install`). */
  readonly extraPackages?: readonly string[];
}

/** A compiler installed in the app. */
export interface AppCompiler {
  readonly choice: TypeScriptChoice;
  readonly version: string;
  /** Absolute path of its tsc script (the two compilers share the bin name, so .bin/tsc is not used). */
  readonly tsc: string;
}

/** The app's own version of a shared library, and the ranges it was chosen from. */
export interface SharedChoice {
  readonly version: string;
  readonly constraints: readonly RangeConstraint[];
}

/** A throwaway app with its install finished. */
export interface InstalledApp {
  readonly plan: AppPlan;
  readonly dir: string;
  /** The install command as run, and where its package list came from. */
  readonly install: { readonly result: CommandResult; readonly listSource: string };
  readonly quickstartSource: string;
  readonly shared: Readonly<Partial<Record<string, SharedChoice>>>;
  readonly compilers: readonly AppCompiler[];
  readonly vitest: string | undefined;
  /** Every installed copy, by package name (from the app's package-lock.json). */
  readonly copies: ReadonlyMap<string, readonly InstalledCopy[]>;
}

/** The alias the floor compiler is installed under, next to `typescript` itself. */
const FLOOR_ALIAS = 'typescript-floor';

/** Programs every app compiles and runs (the quickstart comes from the README). */
const SHARED_CONTAINER_FIXTURE = join(__dirname, 'fixtures', 'shared-container.fixture.ts');
const CONTRACT_FIXTURE = join(__dirname, 'fixtures', 'file-store-contract.fixture.ts');

const isMqkit = (name: string): boolean => name.startsWith('@mqkit/');

/** The mqkit packages an install brings in: the named ones and, transitively, their @mqkit dependencies and peers. */
export function mqkitClosure(names: readonly string[], packed: readonly PackedPackage[]): PackedPackage[] {
  const found = new Map<string, PackedPackage>();
  const visit = (name: string): void => {
    if (found.has(name)) return;
    const pkg = packed.find((p) => p.name === name);
    if (!pkg) throw new Error(`${name} is named for the app but is not a publishable package of the workspace`);
    found.set(name, pkg);
    const m = pkg.manifest;
    for (const dep of Object.keys({ ...m.dependencies, ...m.peerDependencies })) if (isMqkit(dep)) visit(dep);
  };
  for (const name of names) visit(name);
  return [...found.values()];
}

/** `import type` of every export subpath of the given packages, so their declarations are all checked. */
export function entryPointsSource(packages: readonly PackedPackage[]): string {
  const specifiers = packages.flatMap((pkg) => {
    const exports = pkg.manifest.exports;
    if (!exports || typeof exports !== 'object' || Array.isArray(exports)) return [pkg.name];
    const subpaths = Object.keys(exports).filter((k) => k.startsWith('.'));
    if (subpaths.length === 0) return [pkg.name];
    return subpaths
      .filter((k) => !k.includes('*') && !k.endsWith('.json'))
      .map((k) => (k === '.' ? pkg.name : `${pkg.name}/${k.slice(2)}`));
  });
  const imports = specifiers.map((s, i) => `import type * as entry${i} from '${s}';`);
  const uses = specifiers.map((_s, i) => `typeof entry${i}`).join(', ');
  return `// Every entry point's declarations, checked with skipLibCheck: false.\n${imports.join('\n')}\nexport type EntryPoints = [${uses}];\n`;
}

/**
 * The README's tsconfig, as a newcomer copies it, with the library declarations checked in full
 * (`skipLibCheck: false`): the published types must compile in a strict consumer.
 */
function tsconfig(): string {
  const { value } = readmeTsconfig();
  return `${JSON.stringify({ ...value, compilerOptions: { ...value.compilerOptions, skipLibCheck: false } }, null, 2)}\n`;
}

/** A new empty directory for an app, in the OS temp directory; the caller removes it. */
export function makeAppDir(plan: AppPlan): Promise<string> {
  return mkdtemp(join(tmpdir(), `mqkit-app-${plan.name}-`));
}

/**
 * Creates an app in `dir`, a directory from {@link makeAppDir} (outside the workspace, so nothing resolves
 * through the workspace's node_modules), and runs the README's install line in it: @mqkit/* names point at the tarballs, everything else
 * comes from the npm registry through the user's cache. The app's own shared libraries are pinned first (in
 * package.json and in the line), as in a service that already uses them.
 */
export async function createApp(plan: AppPlan, packed: readonly PackedPackage[], dir: string): Promise<InstalledApp> {
  const line = readmeInstallLine();
  const quickstart = readmeQuickstart();
  const named = [...line.value.filter(isMqkit), ...(plan.extraPackages ?? [])];
  const closure = mqkitClosure(named, packed);

  const shared: Record<string, SharedChoice> = {};
  for (const library of SHARED_LIBRARIES) {
    const constraints = rangeConstraints(
      library,
      closure.map((p) => p.manifest),
    );
    if (constraints.length === 0) continue;
    const { oldest, newest } = await oldestAndNewest(
      library,
      constraints.map((c) => c.range),
    );
    shared[library] = { version: plan.shared === 'oldest' ? oldest : newest, constraints };
  }

  const typescript = workspaceToolVersion('typescript');
  const floor = plan.typescripts.includes('floor') ? await newestOf('typescript', TYPESCRIPT_FLOOR) : undefined;
  const vitest = plan.otherVitest ? await otherVitestVersion() : undefined;
  const devDependencies: Record<string, string> = {
    typescript,
    '@types/node': workspaceToolVersion('@types/node'),
    ...(floor ? { [FLOOR_ALIAS]: `npm:typescript@${floor}` } : {}),
    ...(vitest ? { vitest } : {}),
    // ioredis 6.1's own declarations import redis-errors, which has no types: what the Redis store's README tells
    // an app compiling with skipLibCheck: false to add.
    ...(shared.ioredis ? { '@types/redis-errors': workspaceToolVersion('@types/redis-errors') } : {}),
  };
  const dependencies = Object.fromEntries(Object.entries(shared).map(([name, c]) => [name, c.version]));
  const manifest = { name: `mqkit-smoke-${plan.name}`, version: '0.0.0', private: true, type: plan.moduleType };
  await writeFile(
    join(dir, 'package.json'),
    `${JSON.stringify({ ...manifest, dependencies, devDependencies }, null, 2)}\n`,
  );
  await writeFile(join(dir, 'tsconfig.json'), tsconfig());
  await mkdir(join(dir, 'src'));
  await writeFile(join(dir, 'src', 'quickstart.ts'), quickstart.value);
  await writeFile(join(dir, 'src', 'shared-container.ts'), await readFile(SHARED_CONTAINER_FIXTURE, 'utf8'));
  await writeFile(join(dir, 'src', 'entry-points.ts'), entryPointsSource(closure));
  if (vitest) {
    await mkdir(join(dir, 'contract'));
    await writeFile(join(dir, 'contract', 'file-store.contract.spec.ts'), await readFile(CONTRACT_FIXTURE, 'utf8'));
  }

  const tarballOf = (name: string): string => closure.find((p) => p.name === name)!.tarball;
  const args = line.value.map((name) =>
    isMqkit(name) ? tarballOf(name) : shared[name] ? `${name}@${shared[name].version}` : name,
  );
  // The registry would bring the other @mqkit packages the named ones depend on; the tarballs stand in for it.
  for (const pkg of closure) if (!line.value.includes(pkg.name)) args.push(pkg.tarball);
  const result = await runChecked('npm', ['install', ...args, '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd: dir,
    env: appEnv(),
    timeoutMs: 600_000,
    what: `installing the ${plan.name} app`,
  });

  const compilers: AppCompiler[] = plan.typescripts.map((choice) => {
    const name = choice === 'floor' ? FLOOR_ALIAS : 'typescript';
    const pkgDir = join(dir, 'node_modules', name);
    const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as {
      version: string;
      bin: { tsc: string };
    };
    return { choice, version: pkg.version, tsc: join(pkgDir, pkg.bin.tsc) };
  });
  return {
    plan,
    dir,
    install: { result, listSource: line.source },
    quickstartSource: quickstart.source,
    shared,
    compilers,
    vitest,
    copies: installedCopies(dir),
  };
}

/** Compiles the app's programs with one of its compilers; output goes to dist/<choice>. */
export function compileApp(app: InstalledApp, compiler: AppCompiler): Promise<CommandResult> {
  return runCommand(process.execPath, [compiler.tsc, '-p', 'tsconfig.json', '--outDir', `dist/${compiler.choice}`], {
    cwd: app.dir,
    env: appEnv(),
    timeoutMs: 300_000,
  });
}

/** The counts of vitest's JSON report read here. */
export interface VitestReport {
  readonly numTotalTests: number;
  readonly numPassedTests: number;
  readonly numFailedTests: number;
}

/** The app's vitest run of the contract spec, with a JSON report to count what ran. */
export async function runAppVitest(app: InstalledApp): Promise<{ result: CommandResult; report: VitestReport }> {
  const pkgDir = join(app.dir, 'node_modules', 'vitest');
  const pkg = JSON.parse(await readFile(join(pkgDir, 'package.json'), 'utf8')) as { bin: { vitest: string } };
  const reportFile = join(app.dir, 'vitest-report.json');
  const result = await runChecked(
    process.execPath,
    [join(pkgDir, pkg.bin.vitest), 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${reportFile}`],
    { cwd: app.dir, env: appEnv(), timeoutMs: 300_000, what: `the ${app.plan.name} app's vitest` },
  );
  return { result, report: JSON.parse(await readFile(reportFile, 'utf8')) };
}
