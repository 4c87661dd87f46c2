import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/** A map of package names to version ranges, as the dependency fields hold it. */
export type DependencyMap = Readonly<Record<string, string>>;

/** The fields of a package.json the packaging specs read. */
export interface PackageManifest {
  readonly name: string;
  readonly version: string;
  readonly private?: boolean;
  readonly description?: string;
  readonly keywords?: readonly string[];
  readonly homepage?: string;
  readonly bugs?: unknown;
  readonly repository?: unknown;
  readonly license?: string;
  readonly sideEffects?: unknown;
  readonly type?: 'commonjs' | 'module';
  readonly exports?: unknown;
  readonly main?: string;
  readonly types?: string;
  readonly typings?: string;
  readonly module?: string;
  readonly bin?: string | Readonly<Record<string, string>>;
  readonly files?: readonly string[];
  readonly scripts?: Readonly<Record<string, string>>;
  readonly workspaces?: readonly string[];
  readonly dependencies?: DependencyMap;
  readonly devDependencies?: DependencyMap;
  readonly peerDependencies?: DependencyMap;
  readonly peerDependenciesMeta?: Readonly<Record<string, { readonly optional?: boolean }>>;
  readonly optionalDependencies?: DependencyMap;
  readonly engines?: Readonly<Record<string, string>>;
  readonly publishConfig?: unknown;
}

/** A package of the workspace that npm would publish. */
export interface WorkspacePackage {
  readonly name: string;
  readonly version: string;
  /** Absolute directory. */
  readonly dir: string;
  /** The directory relative to the workspace root, `/`-separated (what `repository.directory` names). */
  readonly relativeDir: string;
  readonly manifest: PackageManifest;
  /** The manifest's top-level keys in file order (JSON.parse keeps it), for the key-order rule. */
  readonly keys: readonly string[];
}

/** The workspace root: this file lives in test/src/packaging/. */
export const WORKSPACE_ROOT = resolve(__dirname, '..', '..', '..');

export function readManifest(dir: string): PackageManifest {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageManifest;
}

/**
 * The packages `npm publish --workspaces` would publish: the root's workspace patterns (`dir` or `dir/*`, the
 * two forms npm documents and this workspace uses) expanded, without the `private` ones, sorted by name.
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
    .map(({ dir, manifest }) => ({
      name: manifest.name,
      version: manifest.version,
      dir,
      relativeDir: relative(root, dir).split('\\').join('/'),
      manifest,
      keys: Object.keys(manifest),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
