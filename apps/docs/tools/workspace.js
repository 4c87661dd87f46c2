// @ts-check
'use strict';
/**
 * Reads the workspace's manifests: which packages are published, and which typed entry points each one's
 * `exports` declares. The API reports and the TypeDoc site both start from this, so a package or an entry point
 * added to a manifest is covered without touching a config file.
 */
const { existsSync, readdirSync, readFileSync } = require('node:fs');
const { join, resolve } = require('node:path');

/**
 * @typedef {{ name: string, private?: boolean, exports?: unknown, types?: string, typings?: string,
 *   dependencies?: Record<string, string>, devDependencies?: Record<string, string>, workspaces?: string[] }} Manifest
 * @typedef {{ dir: string, name: string, manifest: Manifest }} WorkspacePackage
 * @typedef {{ subpath: string, types: string }} TypedEntry
 */

const workspaceRoot = resolve(__dirname, '..', '..', '..');

/** @param {string} file @returns {any} */
function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/**
 * The directories the root manifest's `workspaces` names. Only the two forms this workspace uses are supported
 * (`dir` and `dir/*`); anything else is an error rather than a silently skipped package.
 * @param {string} root
 * @returns {string[]}
 */
function workspaceDirs(root) {
  /** @type {Manifest} */
  const rootManifest = readJson(join(root, 'package.json'));
  return (rootManifest.workspaces ?? []).flatMap((pattern) => {
    if (pattern.endsWith('/*')) {
      const parent = join(root, pattern.slice(0, -2));
      return readdirSync(parent, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && existsSync(join(parent, entry.name, 'package.json')))
        .map((entry) => join(parent, entry.name));
    }
    if (/[*?{[]/.test(pattern))
      throw new Error(`workspace pattern "${pattern}" is not supported (only "dir" and "dir/*")`);
    return [join(root, pattern)];
  });
}

/**
 * Every workspace package that is not private, sorted by directory.
 * @param {string} [root]
 * @returns {WorkspacePackage[]}
 */
function publishablePackages(root = workspaceRoot) {
  return workspaceDirs(root)
    .map((dir) => ({ dir, manifest: /** @type {Manifest} */ (readJson(join(dir, 'package.json'))) }))
    .filter(({ manifest }) => manifest.private !== true)
    .map(({ dir, manifest }) => ({ dir, name: manifest.name, manifest }))
    .sort((a, b) => a.dir.localeCompare(b.dir));
}

/**
 * The `types` target of one `exports` value: a string that is itself a declaration file, or the first `types`
 * condition met depth-first in declaration order (the order Node and TypeScript resolve conditions in).
 * @param {unknown} target
 * @returns {string | undefined}
 */
function typesOf(target) {
  if (typeof target === 'string') return /\.d\.[cm]?ts$/.test(target) ? target : undefined;
  if (target === null || typeof target !== 'object' || Array.isArray(target)) return undefined;
  for (const [condition, value] of Object.entries(target)) {
    if (condition === 'types' && typeof value === 'string') return value;
    const nested = typesOf(value);
    if (nested !== undefined) return nested;
  }
  return undefined;
}

/**
 * The entry points of a manifest that have types: `exports` subpaths (a subpath without types, such as
 * `./package.json`, is not an API), or `types`/`typings` as "." when there is no `exports`.
 * @param {Manifest} manifest
 * @returns {TypedEntry[]}
 */
function typedEntries(manifest) {
  const { exports } = manifest;
  if (exports === undefined) {
    const types = manifest.types ?? manifest.typings;
    return types === undefined ? [] : [{ subpath: '.', types }];
  }
  /** @type {Array<[string, unknown]>} */
  const subpaths =
    typeof exports === 'object' &&
    exports !== null &&
    !Array.isArray(exports) &&
    Object.keys(exports)[0]?.startsWith('.')
      ? Object.entries(exports)
      : [['.', exports]];
  /** @type {TypedEntry[]} */
  const entries = [];
  for (const [subpath, target] of subpaths) {
    if (subpath.includes('*')) {
      throw new Error(`${manifest.name}: exports "${subpath}" is a pattern; name each entry point instead`);
    }
    const types = typesOf(target);
    if (types !== undefined) entries.push({ subpath, types });
  }
  return entries;
}

/**
 * The report's file name (without `.api.md`): the unscoped package name, then the subpath with `/` as `-`.
 * `@mqkit/core` "." is `core`, "./testing" is `core-testing`.
 * @param {string} packageName
 * @param {string} subpath
 * @returns {string}
 */
function reportName(packageName, subpath) {
  const unscoped = packageName.replace(/^@[^/]+\//, '');
  const rest = subpath.replace(/^\.\/?/, '').replaceAll('/', '-');
  return rest === '' ? unscoped : `${unscoped}-${rest}`;
}

module.exports = { publishablePackages, readJson, reportName, typedEntries, typesOf, workspaceRoot };
