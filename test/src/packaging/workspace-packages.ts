import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The fields of a package.json this test reads. */
export interface PackageManifest {
  readonly name: string;
  readonly version: string;
  readonly private?: boolean;
  readonly type?: 'commonjs' | 'module';
  readonly main?: string;
  readonly types?: string;
  readonly typings?: string;
  readonly module?: string;
  readonly exports?: unknown;
  readonly bin?: string | Record<string, string>;
  readonly files?: readonly string[];
  readonly workspaces?: readonly string[];
  readonly dependencies?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly peerDependenciesMeta?: Record<string, { readonly optional?: boolean }>;
  readonly optionalDependencies?: Record<string, string>;
}

/** A package of the workspace that npm would publish. */
export interface WorkspacePackage {
  readonly name: string;
  readonly version: string;
  /** Absolute directory. */
  readonly dir: string;
  readonly manifest: PackageManifest;
}

/** The workspace root: this file lives in test/src/packaging/. */
export const WORKSPACE_ROOT = resolve(__dirname, '..', '..', '..');

export function readManifest(dir: string): PackageManifest {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageManifest;
}

/**
 * The packages `npm publish --workspaces` would publish: the root's workspace patterns (`dir` or `dir/*`, the
 * two forms npm documents and this workspace uses) expanded, without the `private` ones.
 */
export function publishablePackages(root = WORKSPACE_ROOT): WorkspacePackage[] {
  const patterns = readManifest(root).workspaces ?? [];
  const dirs = patterns.flatMap((pattern) => {
    if (!pattern.endsWith('/*')) return [join(root, pattern)];
    const base = join(root, pattern.slice(0, -2));
    return readdirSync(base, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(base, entry.name));
  });
  return dirs
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => ({ dir, manifest: readManifest(dir) }))
    .filter(({ manifest }) => manifest.private !== true)
    .map(({ dir, manifest }) => ({ name: manifest.name, version: manifest.version, dir, manifest }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
