/** What every publishable manifest must say, which libraries the app provides, and what never ships. */

export const REPOSITORY_URL = 'git+https://github.com/mqkit/mqkit.git';
export const BUGS_URL = 'https://github.com/mqkit/mqkit/issues';
export const homepageOf = (dir: string): string => `https://github.com/mqkit/mqkit/tree/main/${dir}#readme`;

/** Top-level keys in the conventional order (sort-package-json's); a key not listed here fails the check. */
export const KEY_ORDER = [
  'name',
  'version',
  'private',
  'description',
  'keywords',
  'homepage',
  'bugs',
  'repository',
  'license',
  'sideEffects',
  'type',
  'exports',
  'main',
  'types',
  'bin',
  'files',
  'scripts',
  'dependencies',
  'devDependencies',
  'peerDependencies',
  'peerDependenciesMeta',
  'engines',
  'publishConfig',
] as const;

export const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'peerDependencies'] as const;

/**
 * Libraries of which the app must hold the one copy: DI registries (tsyringe), the metadata polyfill, rxjs types in
 * public signatures, clients the app configures (ioredis, prom-client's registry, the OpenTelemetry API, NestJS),
 * and mqkit's own packages. A package that imports one peer-depends on it.
 */
const APP_PROVIDED = new Set([
  'tsyringe',
  'reflect-metadata',
  'rxjs',
  'ioredis',
  'prom-client',
  '@opentelemetry/api',
  '@nestjs/common',
  '@nestjs/core',
  '@nestjs/microservices',
]);

export function isAppProvided(name: string): boolean {
  return APP_PROVIDED.has(name) || name.startsWith('@mqkit/');
}

/**
 * End-user commands: installed to be run (globally, or with npx), they are the app. They depend (with ranges, so an
 * app's copies dedupe) on the mqkit packages they run and on what those peer on.
 */
export const END_USER_COMMANDS = new Set(['@mqkit/cli']);

/** Test runners that the testing entries load from the app at call time: never a dependency nor a peer. */
export const APP_TEST_RUNNERS = new Set(['vitest']);

/** Paths that never ship: tests, fixtures, test and build configuration. */
export const NEVER_SHIPPED = [
  /(^|\/)[^/]+\.(spec|test|fixture)\.[cm]?[jt]s(\.map)?$/,
  /(^|\/)(__tests__|__fixtures__|fixtures?)\//,
  /(^|\/)tsconfig[^/]*\.json$/,
  /(^|\/)vitest\.config\.[^/]+$/,
  /\.tsbuildinfo$/,
];

/** The build removes dist/ before compiling, so neither a tarball nor nx's cache can hold stale files. */
export const CLEAN_BUILD =
  /^node -e "fs\.rmSync\('dist',\{recursive:true,force:true\}\)" && tsc -p tsconfig\.build\.json$/;
