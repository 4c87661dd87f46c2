import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { type PackedPackage, packPackages } from './pack-packages';

/** What the setup provides under `mqkitPacked`: the tarballs, or why packing failed. */
export type ProvidedPacking =
  | { readonly ok: true; readonly dir: string; readonly packages: readonly PackedPackage[]; readonly packMs: number }
  | { readonly ok: false; readonly error: string };

declare module 'vitest' {
  export interface ProvidedContext {
    mqkitPacked: ProvidedPacking;
  }
}

function isPackagingSpec(path: string): boolean {
  return path.replace(/\\/g, '/').includes('/src/packaging/');
}

/**
 * Packs every publishable package once per run, for all packaging spec files (they run one at a time, and each
 * vitest file has its own module graph, so a shared module would pack once per file). Other runs of this
 * project skip it. A packing failure is provided, not thrown: a thrown global setup fails every file of the
 * project, and the packaging specs can fail with the command and its output instead.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const paths = project.vitest.state.getPaths();
  if (paths.length > 0 && !paths.some(isPackagingSpec)) return async () => undefined;
  const dir = await mkdtemp(join(tmpdir(), 'mqkit-packs-'));
  const started = Date.now();
  try {
    const packages = await packPackages(dir);
    const packMs = Date.now() - started;
    process.stderr.write(`[mqkit] packed ${packages.length} packages into ${dir} in ${packMs} ms\n`);
    project.provide('mqkitPacked', { ok: true, dir, packages, packMs });
  } catch (error) {
    project.provide('mqkitPacked', { ok: false, error: error instanceof Error ? error.message : String(error) });
  }
  return () => rm(dir, { recursive: true, force: true });
}
