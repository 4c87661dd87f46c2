import semver from 'semver';
import type { PackageManifest } from './workspace-packages';

/**
 * The libraries an app and mqkit must share one copy of: core's public types use tsyringe's
 * DependencyContainer and rxjs's Observable, decorators register in tsyringe's registry, and reflect-metadata
 * holds the design:* metadata tsyringe reads. ioredis is the Redis store's: it takes the app's client. An app
 * pins the ones its mqkit packages declare (ioredis only with the Redis store).
 */
export const SHARED_LIBRARIES = ['tsyringe', 'reflect-metadata', 'rxjs', 'ioredis'] as const;
export type SharedLibrary = (typeof SHARED_LIBRARIES)[number];

/** One package's say on which versions of a library it works with. */
export interface RangeConstraint {
  readonly range: string;
  /** e.g. `@mqkit/core peerDependencies ^4.8.0`. */
  readonly origin: string;
}

/**
 * The caret range of a version's compatibility line: `4.10.0` gives `^4.0.0`, `0.2.2` gives `^0.2.0`. A package
 * that pins a library as a regular dependency says nothing about the app's copy; semver's promise is that
 * the app's copy on the same major works, so that is what an app on that library expects.
 */
export function compatibilityLine(spec: string): string {
  const version = semver.minVersion(spec);
  if (!version) throw new Error(`not a version range: ${spec}`);
  return version.major > 0 ? `^${version.major}.0.0` : `^0.${version.minor}.0`;
}

/**
 * What the given packages (an app's mqkit packages, their @mqkit dependencies included) allow for a shared
 * library: every peer range as declared, and for a package that still pins the library as a dependency, that
 * version's compatibility line. An app's oldest and newest supported version satisfy all of them.
 */
export function rangeConstraints(library: string, manifests: readonly PackageManifest[]): RangeConstraint[] {
  return manifests.flatMap((m) => {
    const found: RangeConstraint[] = [];
    const peer = m.peerDependencies?.[library];
    if (peer) found.push({ range: peer, origin: `${m.name} peerDependencies ${peer}` });
    const dependency = m.dependencies?.[library];
    if (dependency) {
      const line = compatibilityLine(dependency);
      found.push({ range: line, origin: `${m.name} dependencies ${dependency} (taken as ${line})` });
    }
    return found;
  });
}
