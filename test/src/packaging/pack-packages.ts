import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { runChecked } from './run-command';
import { type PackageManifest, WORKSPACE_ROOT, publishablePackages, readManifest } from './workspace-packages';

/** One packed package: its tarball and the tarball's contents unpacked beside it. */
export interface PackedPackage {
  readonly name: string;
  readonly version: string;
  /** The workspace directory it was packed from. */
  readonly sourceDir: string;
  /** Absolute path of the .tgz. */
  readonly tarball: string;
  /** Where the tarball was unpacked (the tarball's `package/` directory). */
  readonly unpackedDir: string;
  /** Every path in the tarball, relative to the package root, as `npm pack --json` lists them. */
  readonly files: readonly string[];
  /** The package.json inside the tarball (what a user installs). */
  readonly manifest: PackageManifest;
}

/** Packing could not produce what the specs need. */
export class PackagingError extends Error {
  override readonly name = 'PackagingError';
}

/** The part of `npm pack --json` output read here. */
interface NpmPackEntry {
  readonly name: string;
  readonly version: string;
  readonly filename: string;
  readonly files: ReadonlyArray<{ readonly path: string }>;
}

/**
 * Packs every publishable package of the workspace into `destination` with one `npm pack` (one npm start-up
 * instead of ten), and unpacks each tarball under `destination/unpacked/`. Scripts are not run: the test
 * target's `dependsOn: ^build` built dist/ already, and a nested build would fight nx for the two cores.
 */
export async function packPackages(destination: string, root = WORKSPACE_ROOT): Promise<PackedPackage[]> {
  const packages = publishablePackages(root);
  if (packages.length === 0) throw new PackagingError(`no publishable package in the workspace at ${root}`);
  for (const pkg of packages) {
    const main = pkg.manifest.main;
    if (main && !existsSync(join(pkg.dir, main))) {
      throw new PackagingError(
        `${pkg.name} is not built (${relative(root, join(pkg.dir, main))} is missing): ` +
          'the test target depends on ^build; run `npx nx run-many -t build` first',
      );
    }
  }
  await mkdir(destination, { recursive: true });
  const workspaceArgs = packages.flatMap((pkg) => ['--workspace', relative(root, pkg.dir)]);
  const packed = await runChecked(
    'npm',
    ['pack', '--ignore-scripts', '--json', '--pack-destination', destination, ...workspaceArgs],
    { cwd: root, what: 'packing the workspace packages', timeoutMs: 120_000 },
  );
  const entries = parsePackOutput(packed.stdout);
  const result: PackedPackage[] = [];
  for (const pkg of packages) {
    const entry = entries.find((e) => e.name === pkg.name);
    if (!entry) throw new PackagingError(`npm pack reported no tarball for ${pkg.name}`);
    const tarball = join(destination, entry.filename);
    const into = join(destination, 'unpacked', entry.filename.replace(/\.tgz$/, ''));
    await mkdir(into, { recursive: true });
    // Every CI image has tar; npm's own tarballs hold one top-level directory, package/.
    await runChecked('tar', ['-xzf', tarball, '-C', into], { cwd: destination, what: `unpacking ${entry.filename}` });
    const unpackedDir = join(into, 'package');
    result.push({
      name: pkg.name,
      version: entry.version,
      sourceDir: pkg.dir,
      tarball,
      unpackedDir,
      files: entry.files.map((f) => f.path).sort(),
      manifest: readManifest(unpackedDir),
    });
  }
  return result;
}

/** npm prints lifecycle noise before the JSON when scripts run; with --ignore-scripts stdout is the array. */
function parsePackOutput(stdout: string): NpmPackEntry[] {
  const start = stdout.indexOf('[');
  try {
    return JSON.parse(stdout.slice(start)) as NpmPackEntry[];
  } catch (error) {
    throw new PackagingError(`cannot read npm pack's JSON output: ${stdout.slice(0, 500)}`, { cause: error });
  }
}
