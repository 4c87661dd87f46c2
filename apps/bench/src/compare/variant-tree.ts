import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** A checkout of mqkit to benchmark: the working tree, or a commit unpacked and built on its own. */
export interface Variant {
  /** What it is: `worktree`, or the commit's short hash. */
  readonly label: string;
  /** The full commit hash (for the working tree: HEAD, plus whether it has uncommitted changes). */
  readonly commit: string;
  readonly dirty: boolean;
  /** The repository root of the variant, holding apps/bench/dist. */
  readonly root: string;
}

/** The repository root this bench runs from (apps/bench/dist/compare -> four levels up). */
export function workspaceRoot(): string {
  return resolve(__dirname, '..', '..', '..', '..');
}

function git(root: string, args: readonly string[]): string {
  return execFileSync('git', ['-C', root, ...args], { encoding: 'utf8' }).trim();
}

/** The working tree as it is (built by `npm run bench` before it runs). */
export function worktreeVariant(root = workspaceRoot()): Variant {
  const commit = git(root, ['rev-parse', 'HEAD']);
  const dirty = git(root, ['status', '--porcelain', '--untracked-files=no']) !== '';
  return { label: 'worktree', commit, dirty, root };
}

/**
 * A commit unpacked with `git archive` into a temporary folder and built there. Its node_modules links to the
 * working tree's installed packages, except the @mqkit workspace packages, which link to the commit's own
 * sources: the same dependencies, the commit's code. Built once per commit and reused.
 */
export function commitVariant(rev: string, log: (line: string) => void, root = workspaceRoot()): Variant {
  const commit = git(root, ['rev-parse', '--verify', `${rev}^{commit}`]);
  const dir = join(tmpdir(), 'mqkit-bench-variants', commit);
  const marker = join(dir, '.mqkit-built');
  if (existsSync(marker)) return { label: commit.slice(0, 10), commit, dirty: false, root: dir };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  log(`compare: unpacking ${commit.slice(0, 10)} into ${dir}`);
  const archive = spawnSync('git', ['-C', root, 'archive', '--format=tar', commit], { maxBuffer: 1024 * 1024 * 1024 });
  if (archive.status !== 0) throw new Error(`git archive ${commit} failed: ${archive.stderr.toString()}`);
  const untar = spawnSync('tar', ['-x', '-C', dir], { input: archive.stdout });
  if (untar.status !== 0) throw new Error(`tar -x into ${dir} failed: ${untar.stderr.toString()}`);
  linkNodeModules(join(root, 'node_modules'), join(dir, 'node_modules'));
  log(`compare: building ${commit.slice(0, 10)} (nx run @mqkit/bench:build)`);
  const build = spawnSync(
    process.execPath,
    [join(dir, 'node_modules', '.bin', 'nx'), 'run', '@mqkit/bench:build', '--skip-nx-cache'],
    {
      cwd: dir,
      env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false' },
      encoding: 'utf8',
    },
  );
  if (build.status !== 0)
    throw new Error(`building ${commit} failed:\n${build.stdout.slice(-3000)}\n${build.stderr.slice(-3000)}`);
  writeFileSync(marker, `${new Date().toISOString()}\n`);
  return { label: commit.slice(0, 10), commit, dirty: false, root: dir };
}

/** Mirrors `from` into `to` as links: scope folders one level down, @mqkit's relative links kept relative. */
function linkNodeModules(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from)) {
    if (name === '@mqkit') {
      mkdirSync(join(to, name));
      // npm links workspace packages relatively (../../core): the same link here points at the variant's sources.
      for (const pkg of readdirSync(join(from, name)))
        symlinkSync(readlinkSync(join(from, name, pkg)), join(to, name, pkg));
    } else {
      symlinkSync(join(from, name), join(to, name));
    }
  }
}
