import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { appEnv } from '../packaging/app-env';
import { type CommandResult, runCommand } from '../packaging/run-command';
import { startAndWaitFor } from '../packaging/run-until-output';
import type { DocBlock, RunSpec, TscDiagnostic } from './doc-blocks';
import { parseTscOutput } from './doc-blocks';

/**
 * Compiles the docs' TypeScript blocks the way an app that installed mqkit compiles them: in a directory under
 * test/.scratch, whose imports of `@mqkit/*` resolve through the workspace's node_modules to each package's
 * package.json `exports` and from there to its built `dist/*.d.ts` (what a published package ships), with the
 * tsconfig the README gives newcomers. Two tsc projects, one run each: complete blocks, and fragments with the
 * app names of fragment-context.d.mts (kept apart so a complete block cannot lean on them).
 */

const WORKSPACE = resolve(__dirname, '..', '..', '..');
/** The workspace's TypeScript (7, native: a process, no compiler API). */
const TSC = join(WORKSPACE, 'node_modules', 'typescript', 'bin', 'tsc');
const FRAGMENT_CONTEXT = join(__dirname, 'fragment-context.d.mts');
const CONTEXT_FILE = 'fragment-context.d.mts';

/** What tsc said about the blocks. */
export interface CompiledBlocks {
  /** Per block stem, its errors (line numbers of the block's code). */
  readonly byBlock: ReadonlyMap<string, readonly TscDiagnostic[]>;
  /** Errors in no block: the context file, the tsconfig. Any of these fails the run. */
  readonly elsewhere: readonly TscDiagnostic[];
  /** The two tsc runs, for failure messages. */
  readonly runs: readonly CommandResult[];
}

type Project = 'complete' | 'fragments';

function projectOf(block: DocBlock): Project {
  return block.fragment ? 'fragments' : 'complete';
}

/** The emitted program of a (complete) block. */
function programOf(dir: string, block: DocBlock): string {
  return join(dir, projectOf(block), 'dist', `${block.stem}.mjs`);
}

/**
 * Writes each block as `src/<stem>.mts` of its project, with `tsconfig` (the README's compilerOptions) plus what
 * blocks need: every file a module (`moduleDetection: force`) and the library declarations trusted (the
 * packaging specs check them in full). Emits, so run blocks can run.
 */
export async function compileBlocks(
  dir: string,
  blocks: readonly DocBlock[],
  tsconfig: { compilerOptions: Record<string, unknown> },
): Promise<CompiledBlocks> {
  const context = await readFile(FRAGMENT_CONTEXT, 'utf8');
  const projects: Project[] = ['complete', 'fragments'];
  for (const project of projects) {
    await mkdir(join(dir, project, 'src'), { recursive: true });
    const compilerOptions = { ...tsconfig.compilerOptions, moduleDetection: 'force', skipLibCheck: true };
    const config = { compilerOptions, include: ['src'] };
    await writeFile(join(dir, project, 'tsconfig.json'), `${JSON.stringify(config, null, 2)}\n`);
  }
  await writeFile(join(dir, 'fragments', 'src', CONTEXT_FILE), context);
  for (const block of blocks) await writeFile(join(dir, projectOf(block), 'src', `${block.stem}.mts`), block.code);

  const runs = await Promise.all(
    projects.map((project) =>
      runCommand(process.execPath, [TSC, '-p', 'tsconfig.json', '--pretty', 'false'], {
        cwd: join(dir, project),
        env: appEnv(),
        timeoutMs: 180_000,
      }),
    ),
  );
  const byBlock = new Map<string, TscDiagnostic[]>(blocks.map((block) => [block.stem, []]));
  const elsewhere: TscDiagnostic[] = [];
  for (const run of runs) {
    for (const diagnostic of parseTscOutput(run.stdout)) {
      const stem = basename(diagnostic.file).replace(/\.mts$/, '');
      const list = byBlock.get(stem);
      if (list && diagnostic.file === `src/${stem}.mts`) list.push(diagnostic);
      else elsewhere.push(diagnostic);
    }
    // A tsc that failed without a single parsed error (a crash, a kill) is an error of its own.
    if (run.code !== 0 && parseTscOutput(run.stdout).length === 0)
      elsewhere.push({ file: run.cwd, line: 0, column: 0, code: 'tsc', message: run.output });
  }
  return { byBlock, elsewhere, runs };
}

/** How a run block went: its result, and the stdout lines it was to print but did not. */
export interface BlockRun {
  readonly result: CommandResult;
  readonly missing: readonly string[];
}

/** Generous: a program on the embedded broker takes a second or two, but the machine may be busy. */
const RUN_TIMEOUT_MS = 90_000;

/**
 * Runs a block's emitted program with node, on the embedded broker: the environment drops ROCKETMQ_NAMESRV,
 * which the README's programs read to reach a real cluster. A program that exits by itself must do so within
 * the timeout; a service (`then SIGTERM`) gets its signal once its lines are out.
 */
export async function runBlock(dir: string, block: DocBlock, run: RunSpec): Promise<BlockRun> {
  const program = programOf(dir, block);
  const cwd = join(dir, projectOf(block));
  const missingFrom = (stdout: string) => {
    const lines = new Set(stdout.split(/\r?\n/));
    return run.prints.filter((line) => !lines.has(line));
  };
  if (!run.signal) {
    const result = await runCommand(process.execPath, [program], { cwd, env: appEnv(), timeoutMs: RUN_TIMEOUT_MS });
    return { result, missing: missingFrom(result.stdout) };
  }
  const running = await startAndWaitFor(process.execPath, [program], {
    cwd,
    env: appEnv(),
    until: (lines) => run.prints.every((line) => lines.includes(line)),
    awaiting: run.prints.map((line) => JSON.stringify(line)).join(', '),
    timeoutMs: RUN_TIMEOUT_MS,
  });
  const result = await running.stop(run.signal);
  return { result, missing: missingFrom(result.stdout) };
}
