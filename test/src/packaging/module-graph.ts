import { builtinModules } from 'node:module';
import { posix } from 'node:path';

/** Files of one tarball (paths relative to the package) and a reader for their text. */
export interface PackedPackage {
  readonly files: ReadonlySet<string>;
  read(path: string): string;
}

/** What the entry points of a package reach through relative imports. */
export interface Reachability {
  /** Shipped files reached (the .js/.d.ts files, and the maps next to them). */
  readonly reached: ReadonlySet<string>;
  /** Relative imports whose target does not ship. */
  readonly missing: ReadonlyArray<{ readonly from: string; readonly specifier: string }>;
  /** Packages imported by bare specifier from shipped code (`node:` and built-in modules left out). */
  readonly packages: ReadonlySet<string>;
  /** Which shipped file imports each of those packages first (for messages). */
  readonly importedFrom: ReadonlyMap<string, string>;
}

/** Every file a manifest names as an entry: main, types, bin and every exports target except package.json. */
export function entryPoints(manifest: Record<string, unknown>): string[] {
  const found: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') found.push(posix.normalize(value));
    else if (value && typeof value === 'object') for (const v of Object.values(value)) walk(v);
  };
  walk(manifest.main);
  walk(manifest.types);
  walk(manifest.bin);
  walk(manifest.exports);
  return [...new Set(found)].filter((f) => f !== 'package.json');
}

/** Drops comments, so an import in a TSDoc example is not taken for a real one. */
function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

/** Module specifiers of `require("x")`, `import("x")`, `import "x"` and `... from "x"`. */
export function importSpecifiers(text: string): string[] {
  const code = stripComments(text);
  // A method named require (host.require('sender')) is not a module import: nothing may precede it but a non-word.
  const pattern = /(?:(?<![.\w$])require\(\s*|(?<![.\w$])import\(\s*|\bfrom\s+|^\s*import\s+)(["'])([^"'\n]+)\1/gm;
  return [...code.matchAll(pattern)].map((m) => m[2] as string);
}

/** `@scope/name/sub` -> `@scope/name`, `name/sub` -> `name`. */
export function packageNameOf(specifier: string): string {
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

const BUILTINS = new Set(builtinModules);

/** Candidates for a relative import, in the order Node (for .js) or TypeScript (for .d.ts) tries them. */
function candidates(from: string, specifier: string): string[] {
  const base = posix.normalize(posix.join(posix.dirname(from), specifier));
  if (from.endsWith('.d.ts')) {
    const stem = base.replace(/\.(c|m)?js$/, '');
    return [`${stem}.d.ts`, `${stem}/index.d.ts`];
  }
  return [base, `${base}.js`, `${base}/index.js`];
}

/** Follows relative imports from the entry points through the shipped files. */
export function reachability(pkg: PackedPackage, entries: readonly string[]): Reachability {
  const reached = new Set<string>();
  const missing: Array<{ from: string; specifier: string }> = [];
  const importedFrom = new Map<string, string>();
  const stack = entries.filter((e) => pkg.files.has(e));
  for (const e of entries) if (!pkg.files.has(e)) missing.push({ from: 'package.json', specifier: e });
  while (stack.length > 0) {
    const file = stack.pop() as string;
    if (reached.has(file)) continue;
    reached.add(file);
    if (pkg.files.has(`${file}.map`)) reached.add(`${file}.map`);
    for (const specifier of importSpecifiers(pkg.read(file))) {
      if (specifier.startsWith('.')) {
        const target = candidates(file, specifier).find((c) => pkg.files.has(c));
        if (target) stack.push(target);
        else missing.push({ from: file, specifier });
        continue;
      }
      const name = packageNameOf(specifier);
      if (specifier.startsWith('node:') || BUILTINS.has(name)) continue;
      if (!importedFrom.has(name)) importedFrom.set(name, file);
    }
  }
  return { reached, missing, packages: new Set(importedFrom.keys()), importedFrom };
}

/** A compiled module's files share a stem: dist/x.js, dist/x.d.ts and their maps are one module. */
export function moduleOf(path: string): string {
  return path.replace(/\.(d\.ts|js)(\.map)?$/, '');
}

/** Problems with the shipped source maps: a map whose sources do not ship, a file whose map does not ship. */
export function sourceMapProblems(pkg: PackedPackage): { problems: string[]; sources: Set<string> } {
  const problems: string[] = [];
  const sources = new Set<string>();
  for (const file of pkg.files) {
    if (file.endsWith('.map')) {
      const map = JSON.parse(pkg.read(file)) as { sources?: string[]; sourceRoot?: string; sourcesContent?: unknown[] };
      (map.sources ?? []).forEach((source, i) => {
        const target = posix.normalize(posix.join(posix.dirname(file), map.sourceRoot ?? '', source));
        sources.add(target);
        if (!pkg.files.has(target) && typeof map.sourcesContent?.[i] !== 'string')
          problems.push(`${file} points to ${target}, which does not ship (and the map does not inline it)`);
      });
    } else if (/\.(js|d\.ts)$/.test(file)) {
      const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(pkg.read(file))?.[1];
      if (url && !url.startsWith('data:')) {
        const target = posix.normalize(posix.join(posix.dirname(file), url));
        if (!pkg.files.has(target)) problems.push(`${file} names the map ${target}, which does not ship`);
      }
    }
  }
  return { problems, sources };
}
