import { inject } from 'vitest';
import { type PackedPackage, PackagingError } from './pack-packages';
import type {} from './packaging.global-setup';

/** The tarballs the global setup packed for this run; throws the setup's failure (command, exit code, output). */
export function packedPackages(): readonly PackedPackage[] {
  const packing = inject('mqkitPacked');
  if (!packing) throw new PackagingError('no packed packages: packaging.global-setup.ts is not in globalSetup');
  if (!packing.ok) throw new PackagingError(packing.error);
  return packing.packages;
}

/** The tarball of one package, by name. */
export function packedPackage(name: string): PackedPackage {
  const pkg = packedPackages().find((p) => p.name === name);
  if (!pkg) throw new PackagingError(`${name} is not a publishable package of the workspace`);
  return pkg;
}
