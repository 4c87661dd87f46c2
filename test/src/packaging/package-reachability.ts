import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { moduleSpecifiers, packageOfSpecifier, sourceMapUrl } from './module-specifiers';
import type { PackageManifest } from './workspace-packages';

/** What a package's files are, seen from its entry points. */
export interface ReachabilityReport {
  /** Files reachable from main/types/exports/bin (and their maps and the sources those name). */
  readonly reachable: readonly string[];
  /** Shipped files that are neither reachable nor always-shipped metadata: what should not be in the tarball. */
  readonly unreachable: readonly string[];
  /** Entry points or relative specifiers of reachable files that name no shipped file: a broken package. */
  readonly missing: readonly string[];
  /** Source maps of reachable files whose sources are neither inlined nor shipped (debuggers cannot show them). */
  readonly unresolvedMapSources: readonly string[];
  /**
   * The packages reachable files import by bare specifier (Node built-ins left out), each with the first file
   * found importing it, for messages: what the manifest must declare.
   */
  readonly importedPackages: ReadonlyMap<string, string>;
}

/** Files npm ships whatever `files` says, and the changelog, which documents the package. */
const METADATA_FILE = /^(package\.json|(readme|licen[cs]e|changelog)(\.[^/]*)?)$/i;

/** Script and declaration files whose specifiers are followed. */
const CODE_FILE = /\.(c|m)?js$|\.d\.(c|m)?ts$/;
const DECLARATION_FILE = /\.d\.(c|m)?ts$/;

/** Every string target in an `exports` value (conditions and subpaths alike), `null` exclusions left out. */
export function exportTargets(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(exportTargets);
  if (value && typeof value === 'object') return Object.values(value).flatMap(exportTargets);
  return [];
}

/** The files of `files` a target names; a subpath pattern's `*` matches any path, as Node's exports do. */
function matchTarget(target: string, files: ReadonlySet<string>): string[] {
  const path = posix.normalize(target.replace(/^\.\//, ''));
  if (!path.includes('*')) return [path];
  const [head, tail] = path.split('*', 2) as [string, string];
  return [...files].filter((f) => f.startsWith(head) && f.endsWith(tail) && f.length >= head.length + tail.length);
}

/** The entry points of a manifest, as package-relative paths (a missing one is reported, not dropped). */
export function entryPoints(manifest: PackageManifest, files: ReadonlySet<string>): string[] {
  const targets: string[] = [];
  if (manifest.main) targets.push(resolveRequire(posix.normalize(manifest.main), files) ?? manifest.main);
  const types = manifest.types ?? manifest.typings;
  if (types) targets.push(types);
  // Without a types field TypeScript reads the declaration beside main.
  else if (manifest.main) {
    const beside = posix.normalize(manifest.main).replace(/\.(c|m)?js$/, '.d.$1ts');
    if (files.has(beside)) targets.push(beside);
  }
  if (manifest.module) targets.push(manifest.module);
  if (manifest.exports !== undefined) targets.push(...exportTargets(manifest.exports));
  targets.push(...binTargets(manifest));
  return [...new Set(targets.flatMap((t) => matchTarget(t, files)))];
}

/** The files `bin` names (one string, or a command-to-file map), as package-relative paths. */
export function binTargets(manifest: PackageManifest): string[] {
  const { bin } = manifest;
  const targets = typeof bin === 'string' ? [bin] : Object.values(bin ?? {});
  return targets.map((t) => posix.normalize(t));
}

/** Node's CommonJS lookup of a relative path inside the package: the file, then .js/.json/.cjs, then index. */
function resolveRequire(path: string, files: ReadonlySet<string>): string | undefined {
  const candidates = [path, `${path}.js`, `${path}.json`, `${path}.cjs`, `${path}/index.js`, `${path}/index.json`];
  return candidates.find((c) => files.has(c));
}

/** TypeScript's lookup of a relative specifier from a declaration file: `./x.js` means `./x.d.ts`. */
function resolveDeclaration(path: string, files: ReadonlySet<string>): string | undefined {
  const swapped = path.replace(/\.(c|m)?js$/, '.d.$1ts');
  const candidates = [swapped, path, `${path}.d.ts`, `${path}/index.d.ts`, `${path}.ts`];
  return candidates.find((c) => files.has(c));
}

/**
 * Walks a package from its entry points: the relative require()/import specifiers of every reached .js and
 * .d.ts, the other half of each reached module (x.js and x.d.ts), their source maps, and the sources those maps
 * name when shipped. Bare specifiers (other packages, node: builtins, self-references by package name) are
 * outside this package's files: they are recorded in `importedPackages`, not followed.
 *
 * @param read reads a shipped file by package-relative path (the unpacked tarball).
 */
export function analyseReachability(
  manifest: PackageManifest,
  fileList: readonly string[],
  read: (path: string) => string,
): ReachabilityReport {
  const files = new Set(fileList);
  const reachable = new Set<string>();
  const missing = new Set<string>();
  const unresolvedMapSources = new Set<string>();
  const importedPackages = new Map<string, string>();
  const queue: string[] = [];
  const reach = (path: string): void => {
    if (reachable.has(path)) return;
    reachable.add(path);
    queue.push(path);
  };
  for (const entry of entryPoints(manifest, files)) {
    if (files.has(entry)) reach(entry);
    else missing.add(`entry point ${entry}`);
  }
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (file.endsWith('.map')) {
      for (const source of mapSourcesToCheck(file, read(file))) {
        if (source.inlined) continue;
        if (files.has(source.path)) reach(source.path);
        else unresolvedMapSources.add(`${file} -> ${source.path}`);
      }
      continue;
    }
    if (!CODE_FILE.test(file)) continue;
    const code = read(file);
    const dir = posix.dirname(file);
    for (const specifier of moduleSpecifiers(code)) {
      if (!specifier.startsWith('./') && !specifier.startsWith('../')) {
        const name = packageOfSpecifier(specifier);
        if (name !== undefined && !importedPackages.has(name)) importedPackages.set(name, file);
        continue;
      }
      const target = posix.normalize(posix.join(dir, specifier));
      const resolved = DECLARATION_FILE.test(file) ? resolveDeclaration(target, files) : resolveRequire(target, files);
      if (resolved) reach(resolved);
      else missing.add(`${file} imports ${specifier}`);
    }
    const half = companion(file);
    if (files.has(half)) reach(half);
    const mapUrl = sourceMapUrl(code);
    const map = mapUrl ? posix.normalize(posix.join(dir, mapUrl)) : `${file}.map`;
    if (files.has(map)) reach(map);
    else if (mapUrl) missing.add(`${file} names the source map ${mapUrl}`);
  }
  const unreachable = fileList.filter((f) => !reachable.has(f) && !METADATA_FILE.test(f));
  return {
    reachable: [...reachable].sort(),
    unreachable: unreachable.sort(),
    missing: [...missing].sort(),
    unresolvedMapSources: [...unresolvedMapSources].sort(),
    importedPackages,
  };
}

/**
 * The other half of a compiled module: tsc emits x.js and x.d.ts from one x.ts, and a package cannot ship one
 * without the other. A type-only module's x.js is reached only through its x.d.ts, and an internal module's
 * x.d.ts only through its x.js; both belong to a reachable module.
 */
function companion(file: string): string {
  const declaration = /\.d\.(c|m)?ts$/.exec(file);
  if (declaration) return `${file.slice(0, declaration.index)}.${declaration[1] ?? ''}js`;
  return file.replace(/\.(c|m)?js$/, '.d.$1ts');
}

/** The part of a source map read here. */
interface SourceMapJson {
  readonly sourceRoot?: string;
  readonly sources?: ReadonlyArray<string | null>;
  readonly sourcesContent?: ReadonlyArray<string | null>;
}

function mapSourcesToCheck(mapFile: string, text: string): Array<{ path: string; inlined: boolean }> {
  const map = JSON.parse(text) as SourceMapJson;
  const base = posix.join(posix.dirname(mapFile), map.sourceRoot ?? '');
  return (map.sources ?? []).flatMap((source, index) =>
    source === null
      ? []
      : [
          {
            path: posix.normalize(posix.join(base, source)),
            inlined: typeof map.sourcesContent?.[index] === 'string',
          },
        ],
  );
}

/** {@link analyseReachability} on an unpacked tarball directory. */
export function analyseUnpacked(manifest: PackageManifest, files: readonly string[], dir: string): ReachabilityReport {
  return analyseReachability(manifest, files, (path) => readFileSync(posix.join(dir, path), 'utf8'));
}
