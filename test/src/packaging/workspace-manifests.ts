import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/** The part of a package.json these checks read. */
export interface Manifest {
  readonly name: string;
  readonly version: string;
  readonly private?: boolean;
  readonly [key: string]: unknown;
}

/** A workspace package: its directory (relative to the root, `/`-separated) and its parsed package.json. */
export interface WorkspacePackage {
  readonly dir: string;
  readonly absDir: string;
  readonly manifest: Manifest;
  /** The manifest's keys in file order (JSON.parse keeps it). */
  readonly keys: readonly string[];
}

/** The repository root: the directory above test/. */
export const WORKSPACE_ROOT = resolve(__dirname, '..', '..', '..');

export function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

/** Expands the root's `workspaces` (plain paths and `dir/*`) into the packages they name. */
export function workspacePackages(root = WORKSPACE_ROOT): WorkspacePackage[] {
  const { workspaces } = readJson<{ workspaces: string[] }>(join(root, 'package.json'));
  const dirs = workspaces.flatMap((pattern) => {
    if (!pattern.endsWith('/*')) return [join(root, pattern)];
    const parent = join(root, pattern.slice(0, -2));
    return readdirSync(parent, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => join(parent, e.name));
  });
  return dirs
    .filter((d) => existsSync(join(d, 'package.json')))
    .map((absDir) => {
      const manifest = readJson<Manifest>(join(absDir, 'package.json'));
      return { dir: relative(root, absDir).split('\\').join('/'), absDir, manifest, keys: Object.keys(manifest) };
    });
}

/** The packages npm would publish: every workspace package that is not private. */
export function publishablePackages(root = WORKSPACE_ROOT): WorkspacePackage[] {
  return workspacePackages(root).filter((p) => p.manifest.private !== true);
}
