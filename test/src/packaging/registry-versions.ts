import { tmpdir } from 'node:os';
import semver from 'semver';
import { runChecked } from './run-command';

const cache = new Map<string, Promise<string[]>>();

/**
 * The published versions of a package, from the npm registry (`npm view <name> versions --json`; with
 * --prefer-offline a cached packument is used when the user's cache has one). Prereleases are left out: a
 * supported range means releases. One lookup per package per test file.
 */
export function registryVersions(name: string): Promise<string[]> {
  let versions = cache.get(name);
  if (!versions) {
    versions = runChecked('npm', ['view', name, 'versions', '--json', '--prefer-offline'], {
      // Outside the workspace, so its .npmrc and workspaces play no part.
      cwd: tmpdir(),
      timeoutMs: 120_000,
      what: `reading ${name}'s versions from the registry`,
    }).then((run) => {
      const parsed = JSON.parse(run.stdout) as string[] | string;
      const all = Array.isArray(parsed) ? parsed : [parsed];
      return all.filter((v) => semver.valid(v) && semver.prerelease(v) === null).sort(semver.compare);
    });
    cache.set(name, versions);
  }
  return versions;
}

/** The oldest and newest published versions that satisfy every range. */
export async function oldestAndNewest(
  name: string,
  ranges: readonly string[],
): Promise<{ readonly oldest: string; readonly newest: string }> {
  const matching = (await registryVersions(name)).filter((v) => ranges.every((r) => semver.satisfies(v, r)));
  const oldest = matching[0];
  const newest = matching.at(-1);
  if (!oldest || !newest) throw new Error(`no published ${name} satisfies ${ranges.join(' and ')}`);
  return { oldest, newest };
}
