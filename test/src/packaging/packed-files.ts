import { execFileSync } from 'node:child_process';
import { WORKSPACE_ROOT, type WorkspacePackage } from './workspace-manifests';

/**
 * The files `npm pack` would put in each package's tarball (paths relative to the package), by package name.
 * One `npm pack --dry-run --json` for all of them; `--ignore-scripts` so that prepack does not rebuild: the
 * checks read the dist/ the build left.
 */
export function packedFiles(packages: readonly WorkspacePackage[]): Map<string, Set<string>> {
  const args = ['pack', '--dry-run', '--json', '--ignore-scripts', ...packages.flatMap((p) => ['-w', p.dir])];
  const stdout = execFileSync('npm', args, {
    cwd: WORKSPACE_ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const packs = JSON.parse(stdout) as Array<{ name: string; files: Array<{ path: string }> }>;
  return new Map(packs.map((p) => [p.name, new Set(p.files.map((f) => f.path))]));
}
