import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One installed copy of a package in an app's node_modules. */
export interface InstalledCopy {
  /** Where it sits, e.g. `node_modules/@mqkit/core/node_modules/tsyringe`. */
  readonly path: string;
  readonly version: string;
  /** Where npm got it from; registry packages may have none (`omit-lockfile-registry-resolved`). */
  readonly resolved: string | undefined;
}

interface LockfilePackage {
  readonly version?: string;
  readonly resolved?: string;
  readonly link?: boolean;
}

/**
 * Every installed copy by package name, from the app's package-lock.json (lockfile v3 lists each node_modules
 * path). This is what Node will load: two entries for one name are two copies.
 */
export function installedCopies(appDir: string): Map<string, InstalledCopy[]> {
  const lock = JSON.parse(readFileSync(join(appDir, 'package-lock.json'), 'utf8')) as {
    readonly packages?: Record<string, LockfilePackage>;
  };
  const copies = new Map<string, InstalledCopy[]>();
  for (const [path, entry] of Object.entries(lock.packages ?? {})) {
    const at = path.lastIndexOf('node_modules/');
    if (at === -1 || entry.link) continue;
    const name = path.slice(at + 'node_modules/'.length);
    const list = copies.get(name) ?? [];
    list.push({ path, version: entry.version ?? '?', resolved: entry.resolved });
    copies.set(name, list);
  }
  return copies;
}
