import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  APP_TEST_RUNNERS,
  BUGS_URL,
  CLEAN_BUILD,
  DEPENDENCY_FIELDS,
  END_USER_COMMANDS,
  KEY_ORDER,
  NEVER_SHIPPED,
  REPOSITORY_URL,
  homepageOf,
  isAppProvided,
} from './manifest-rules';
import { entryPoints, moduleOf, reachability, sourceMapProblems, type PackedPackage } from './module-graph';
import { packedFiles } from './packed-files';
import { WORKSPACE_ROOT, publishablePackages, readJson, type WorkspacePackage } from './workspace-manifests';

// Every publishable package.json, and what `npm pack` would ship from the dist/ the build left (nx runs the builds
// first: test dependsOn ^build).
type Deps = Record<string, string>;
const packages = publishablePackages();
const rootManifest = readJson<{ engines: { node: string } }>(join(WORKSPACE_ROOT, 'package.json'));
const rootLicense = readFileSync(join(WORKSPACE_ROOT, 'LICENSE'), 'utf8');
const versions = new Map(packages.map((p) => [p.manifest.name, p.manifest.version]));
const depsOf = (p: WorkspacePackage, field: (typeof DEPENDENCY_FIELDS)[number]): Deps =>
  (p.manifest[field] as Deps | undefined) ?? {};
const isExact = (range: string): boolean => semver.valid(range) !== null;

let packed: Map<string, Set<string>>;
beforeAll(() => {
  const unbuilt = packages.filter((p) => !existsSync(join(p.absDir, 'dist')));
  if (unbuilt.length > 0)
    throw new Error(`build first (npx nx run-many -t build): no dist/ in ${unbuilt.map((p) => p.dir).join(', ')}`);
  packed = packedFiles(packages);
}, 120_000);

function tarball(p: WorkspacePackage): PackedPackage {
  const files = packed.get(p.manifest.name);
  if (!files) throw new Error(`npm pack listed no files for ${p.manifest.name}`);
  return { files, read: (path) => readFileSync(join(p.absDir, path), 'utf8') };
}

describe('the workspace', () => {
  it('has publishable packages, core among them', () => {
    expect(packages.map((p) => p.manifest.name)).toContain('@mqkit/core');
    expect(packages.length).toBeGreaterThan(1);
  });

  it('has the Apache License 2.0 at the root', () => {
    expect(rootLicense).toMatch(
      /^\s*Apache License\s+Version 2\.0, January 2004\s+http:\/\/www\.apache\.org\/licenses\//,
    );
    for (const clause of [
      '1. Definitions.',
      '9. Accepting Warranty or Additional Liability.',
      'END OF TERMS AND CONDITIONS',
    ])
      expect(rootLicense).toContain(clause);
  });
});

describe.each(packages.map((p) => [p.manifest.name, p] as const))('%s', (name, p) => {
  const m = p.manifest;
  const isCommand = END_USER_COMMANDS.has(name);

  it('says where it comes from, under which license, for which Node, and publishes publicly', () => {
    expect(m.license).toBe('Apache-2.0');
    expect(existsSync(join(p.absDir, 'LICENSE')), `${p.dir}/LICENSE`).toBe(true);
    expect(readFileSync(join(p.absDir, 'LICENSE'), 'utf8'), `${p.dir}/LICENSE differs from the root LICENSE`).toBe(
      rootLicense,
    );
    expect(m.engines).toEqual({ node: rootManifest.engines.node });
    expect(m.repository).toEqual({ type: 'git', url: REPOSITORY_URL, directory: p.dir });
    expect(m.homepage).toBe(homepageOf(p.dir));
    expect(m.bugs).toEqual({ url: BUGS_URL });
    expect(m.publishConfig).toEqual({ access: 'public' });
    const keywords = m.keywords as unknown;
    expect(Array.isArray(keywords) && keywords.length > 0, 'keywords: a non-empty list').toBe(true);
    expect(new Set(keywords as string[]).size, 'keywords are unique').toBe((keywords as string[]).length);
  });

  it('keeps the conventional key order, and dependency maps sorted', () => {
    const unknown = p.keys.filter((k) => !(KEY_ORDER as readonly string[]).includes(k));
    expect(unknown, 'keys this check does not know: add them to KEY_ORDER').toEqual([]);
    expect(p.keys, 'keys in the conventional order (KEY_ORDER)').toEqual(KEY_ORDER.filter((k) => p.keys.includes(k)));
    for (const field of DEPENDENCY_FIELDS) {
      const names = Object.keys(depsOf(p, field));
      expect(names, `${field} sorted`).toEqual([...names].sort());
    }
  });

  it('builds from a clean dist/ before it is packed', () => {
    const scripts = m.scripts as Record<string, string>;
    expect(scripts.prepack).toBe(`nx run ${name}:build`);
    expect(scripts.build).toMatch(CLEAN_BUILD);
  });

  it('declares every package its shipped code imports, and peers on what the app provides', () => {
    const { packages: imported, importedFrom } = reachability(tarball(p), entryPoints(m));
    const [deps, dev, peers] = DEPENDENCY_FIELDS.map((f) => depsOf(p, f)) as [Deps, Deps, Deps];
    for (const dep of imported) {
      if (APP_TEST_RUNNERS.has(dep) || dep === name) continue;
      const where = `${dep} (imported by ${importedFrom.get(dep)})`;
      expect(dep in deps || dep in peers, `${where} is neither a dependency nor a peer`).toBe(true);
      if (isAppProvided(dep) && !isCommand) expect(dep in peers, `${where} is provided by the app: a peer`).toBe(true);
    }
    for (const [dep, range] of Object.entries(deps)) {
      if (!isAppProvided(dep)) continue;
      expect(isCommand, `${dep} is provided by the app: a peer, not a dependency`).toBe(true);
      expect(isExact(range) || semver.validRange(range) === null, `${dep}@${range}: a range`).toBe(false);
    }
    for (const [dep, range] of Object.entries(peers)) {
      expect(semver.validRange(range), `peer ${dep}@${range} is a valid range`).not.toBeNull();
      expect(isExact(range), `peer ${dep}@${range}: a range, not one version`).toBe(false);
      // The workspace still installs it: an exact devDependency inside the range.
      expect(dev[dep] !== undefined && isExact(dev[dep]), `${dep}: an exact devDependency`).toBe(true);
      expect(semver.satisfies(dev[dep] as string, range), `devDependency ${dep}@${dev[dep]} within ${range}`).toBe(
        true,
      );
    }
  });

  it('takes @mqkit packages with ranges its workspace versions satisfy', () => {
    const [deps, dev, peers] = DEPENDENCY_FIELDS.map((f) => depsOf(p, f)) as [Deps, Deps, Deps];
    if (name !== '@mqkit/core') {
      const field = isCommand ? deps : peers;
      expect(field['@mqkit/core'], `@mqkit/core as a ${isCommand ? 'dependency' : 'peer'}`).toBeDefined();
      if (!isCommand)
        expect(dev['@mqkit/core'], 'an exact devDependency on @mqkit/core').toBe(versions.get('@mqkit/core'));
    }
    for (const [dep, range] of [...Object.entries(deps), ...Object.entries(peers)]) {
      const version = versions.get(dep);
      if (!dep.startsWith('@mqkit/')) continue;
      expect(version, `${dep} is a publishable workspace package`).toBeDefined();
      expect(semver.satisfies(version as string, range), `${dep}@${range} takes the workspace's ${version}`).toBe(true);
    }
    for (const [dep, version] of Object.entries(dev))
      if (versions.has(dep)) expect(version, `devDependency ${dep}: the workspace version`).toBe(versions.get(dep));
  });

  it('neither depends nor peers on a test runner', () => {
    for (const runner of APP_TEST_RUNNERS) {
      expect(depsOf(p, 'dependencies'), runner).not.toHaveProperty([runner]);
      expect(depsOf(p, 'peerDependencies'), runner).not.toHaveProperty([runner]);
    }
    expect(m.peerDependenciesMeta, 'no optional peers').toBeUndefined();
  });

  it('ships its entry points and what they reach, with sources for the maps, and nothing else', () => {
    const pkg = tarball(p);
    expect(
      [...pkg.files].filter((f) => NEVER_SHIPPED.some((re) => re.test(f))),
      'tests and configuration',
    ).toEqual([]);
    expect(pkg.files.has('LICENSE'), 'LICENSE ships').toBe(true);
    const { reached, missing } = reachability(pkg, entryPoints(m));
    expect(missing, 'imports or entry points whose target does not ship').toEqual([]);
    const reachedModules = new Set([...reached].map(moduleOf));
    const compiled = [...pkg.files].filter((f) => /\.(js|d\.ts)(\.map)?$/.test(f));
    expect(
      compiled.filter((f) => !reachedModules.has(moduleOf(f))),
      'compiled files no entry point reaches (exclude them in "files")',
    ).toEqual([]);
    const { problems, sources } = sourceMapProblems(pkg);
    expect(problems, 'source maps that do not resolve').toEqual([]);
    const sourceFiles = [...pkg.files].filter((f) => f.startsWith('src/'));
    expect(sourceFiles.length, 'src/ ships for the maps').toBeGreaterThan(0);
    expect(
      sourceFiles.filter((f) => !sources.has(f)),
      'sources no shipped map points to',
    ).toEqual([]);
    for (const bin of entryPoints({ bin: m.bin }))
      expect(pkg.read(bin).startsWith('#!/usr/bin/env node\n'), `${bin} starts with a node shebang`).toBe(true);
  });
});
