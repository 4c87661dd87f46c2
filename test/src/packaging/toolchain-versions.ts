import semver from 'semver';
import { registryVersions } from './registry-versions';
import { WORKSPACE_ROOT, readManifest } from './workspace-packages';

/**
 * The oldest TypeScript the published declarations support, as a range of its patch releases (the newest
 * patch is used). Found by compiling the quickstart, the shared-container program and every entry point's
 * types (`skipLibCheck: false`, module nodenext, CJS and ESM) with each candidate: 5.0, 5.4, 5.6, 5.9 and 6.0
 * all pass, as does 4.9; 4.7 fails inside @types/node 20 (TS2502 in stream/web.d.ts), not in mqkit's files.
 * 5.0 is the floor: the oldest release of the 5 line, which the README can promise.
 */
export const TYPESCRIPT_FLOOR = '~5.0.0';

/** A dev tool's version as the workspace root pins it (the version mqkit itself is built and tested with). */
export function workspaceToolVersion(name: string): string {
  const version = readManifest(WORKSPACE_ROOT).devDependencies?.[name];
  if (!version || !semver.valid(version)) {
    throw new Error(`the workspace root must pin ${name} exactly in devDependencies (found ${version})`);
  }
  return version;
}

/** The newest release satisfying a range. */
export async function newestOf(name: string, range: string): Promise<string> {
  const found = semver.maxSatisfying(await registryVersions(name), range);
  if (!found) throw new Error(`no published ${name} satisfies ${range}`);
  return found;
}

/** The newest vitest of an older major than the workspace's: an app that moves at its own pace. */
export async function otherVitestVersion(): Promise<string> {
  const major = semver.major(workspaceToolVersion('vitest'));
  return newestOf('vitest', `<${major}.0.0`);
}
