import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import {
  APP_TEST_RUNNERS,
  BUGS_URL,
  CLEAN_BUILD,
  DEPENDENCY_FIELDS,
  END_USER_COMMANDS,
  KEY_ORDER,
  REPOSITORY_URL,
  homepageOf,
  isAppProvided,
} from './manifest-rules';
import { analyseUnpacked } from './package-reachability';
import { packedPackage } from './packed';
import {
  type DependencyMap,
  WORKSPACE_ROOT,
  type WorkspacePackage,
  publishablePackages,
  readManifest,
} from './workspace-packages';

// What every publishable package.json says. These rules read the workspace's manifests; the one that compares
// the manifest with the shipped code reads the tarball the global setup packed (packedPackage() inside the test,
// so a packing failure fails that test with npm's output and leaves the manifest-only rules standing).
const packages = publishablePackages();
const rootManifest = readManifest(WORKSPACE_ROOT);
const rootLicense = readFileSync(join(WORKSPACE_ROOT, 'LICENSE'), 'utf8');
const versions = new Map(packages.map((p) => [p.name, p.version]));
const depsOf = (p: WorkspacePackage, field: (typeof DEPENDENCY_FIELDS)[number]): DependencyMap =>
  p.manifest[field] ?? {};
const isExact = (range: string): boolean => semver.valid(range) !== null;
const dependencyMaps = (p: WorkspacePackage): { deps: DependencyMap; dev: DependencyMap; peers: DependencyMap } => ({
  deps: depsOf(p, 'dependencies'),
  dev: depsOf(p, 'devDependencies'),
  peers: depsOf(p, 'peerDependencies'),
});

describe('the workspace', () => {
  it('has publishable packages, core among them', () => {
    expect(packages.map((p) => p.name)).toContain('@mqkit/core');
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

describe.each(packages.map((p) => [p.name, p] as const))('%s', (name, p) => {
  const m = p.manifest;
  const isCommand = END_USER_COMMANDS.has(name);

  it('says where it comes from, under which license, for which Node, and publishes publicly', () => {
    expect(m.license).toBe('Apache-2.0');
    expect(m.engines).toEqual({ node: rootManifest.engines?.node });
    expect(m.repository).toEqual({ type: 'git', url: REPOSITORY_URL, directory: p.relativeDir });
    expect(m.homepage).toBe(homepageOf(p.relativeDir));
    expect(m.bugs).toEqual({ url: BUGS_URL });
    expect(m.publishConfig).toEqual({ access: 'public' });
    const keywords: unknown = m.keywords;
    expect(Array.isArray(keywords) && keywords.length > 0, 'keywords: a non-empty list').toBe(true);
    expect(new Set(m.keywords).size, 'keywords are unique').toBe(m.keywords?.length);
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
    expect(m.scripts?.prepack).toBe(`nx run ${name}:build`);
    expect(m.scripts?.build).toMatch(CLEAN_BUILD);
  });

  it('declares every package its shipped code imports, and peers on what the app provides', () => {
    const pkg = packedPackage(name);
    const { importedPackages } = analyseUnpacked(pkg.manifest, pkg.files, pkg.unpackedDir);
    const { deps, peers } = dependencyMaps(p);
    expect(importedPackages.size, 'the walk found the imports of the shipped code').toBeGreaterThan(0);
    for (const [dep, importer] of importedPackages) {
      if (APP_TEST_RUNNERS.has(dep) || dep === name) continue;
      const where = `${dep} (imported by ${importer})`;
      expect(dep in deps || dep in peers, `${where} is neither a dependency nor a peer`).toBe(true);
      if (isAppProvided(dep) && !isCommand) expect(dep in peers, `${where} is provided by the app: a peer`).toBe(true);
    }
  });

  it('takes what the app provides as a peer range, which its exact devDependency satisfies', () => {
    const { deps, dev, peers } = dependencyMaps(p);
    for (const [dep, range] of Object.entries(deps)) {
      if (!isAppProvided(dep)) continue;
      expect(isCommand, `${dep} is provided by the app: a peer, not a dependency`).toBe(true);
      expect(isExact(range) || semver.validRange(range) === null, `${dep}@${range}: a range`).toBe(false);
    }
    for (const [dep, range] of Object.entries(peers)) {
      expect(semver.validRange(range), `peer ${dep}@${range} is a valid range`).not.toBeNull();
      expect(isExact(range), `peer ${dep}@${range}: a range, not one version`).toBe(false);
      // The workspace still installs it: an exact devDependency inside the range.
      const devVersion = dev[dep];
      expect(devVersion !== undefined && isExact(devVersion), `${dep}: an exact devDependency`).toBe(true);
      expect(semver.satisfies(devVersion ?? '', range), `devDependency ${dep}@${devVersion} within ${range}`).toBe(
        true,
      );
    }
  });

  it('takes @mqkit packages with ranges its workspace versions satisfy', () => {
    const { deps, dev, peers } = dependencyMaps(p);
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
      expect(semver.satisfies(version ?? '', range), `${dep}@${range} takes the workspace's ${version}`).toBe(true);
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
});
