import { join } from 'node:path';
import { type CommandResult, CommandError, runCommand } from './run-command';
import { WORKSPACE_ROOT } from './workspace-packages';

/** One message of a linter about one tarball. */
export interface LintFinding {
  readonly level: string;
  readonly message: string;
}

/** What a linter said about a tarball: its findings, and the run for a failure message. */
export interface LintReport {
  readonly findings: readonly LintFinding[];
  readonly run: CommandResult;
}

const BIN = join(WORKSPACE_ROOT, 'node_modules', '.bin');

/**
 * publint on a tarball (it lints what is packed, not the workspace folder). Every level counts, suggestions
 * included: they name the fields a registry page and a consumer's tooling read (engines, type, repository),
 * which the package should simply have. An exit code other than 0 and 1 (1 = errors found) is a crash.
 */
export async function publint(tarball: string): Promise<LintReport> {
  const run = await runCommand(join(BIN, 'publint'), ['run', tarball, '--level', 'suggestion'], {
    cwd: WORKSPACE_ROOT,
    timeoutMs: 60_000,
  });
  if (run.code !== 0 && run.code !== 1) throw new CommandError(run, 'publint crashed');
  const findings: LintFinding[] = [];
  let level = '';
  for (const line of run.stdout.split('\n')) {
    const section = /^(Errors|Warnings|Suggestions):\s*$/.exec(line.trim());
    if (section) level = section[1]!.toLowerCase().replace(/s$/, '');
    const item = /^\d+\.\s+(.*)$/.exec(line.trim());
    if (item && level) findings.push({ level, message: item[1]! });
  }
  if (run.code === 1 && findings.length === 0) throw new CommandError(run, 'publint failed but reported nothing');
  if (run.code === 0 && findings.length === 0 && !/All good!/.test(run.stdout)) {
    throw new CommandError(run, 'publint output not understood (no findings, no "All good!")');
  }
  return { findings, run };
}

/**
 * are-the-types-wrong on a tarball with the node16 profile: the packages are CommonJS with subpath exports,
 * which node10 resolution (TypeScript's `moduleResolution: node`, deprecated) cannot see at all, so its
 * "NoResolution" for every subpath is expected and not a defect. The profile drops the node10 column and checks
 * node16 from CJS, node16 from ESM and bundler. No rule is ignored. `--no-definitely-typed`: the packages ship
 * their own types, and looking up @types/mqkit__* would only ask the registry for packages that do not exist.
 */
export async function attw(tarball: string): Promise<LintReport> {
  const run = await runCommand(
    join(BIN, 'attw'),
    [tarball, '--profile', 'node16', '--no-definitely-typed', '--format', 'json', '--no-color'],
    { cwd: WORKSPACE_ROOT, timeoutMs: 120_000 },
  );
  let parsed: AttwJson;
  try {
    parsed = JSON.parse(run.stdout) as AttwJson;
  } catch {
    throw new CommandError(run, 'attw printed no JSON report');
  }
  // The JSON lists every problem, also those of the resolution kinds the profile ignores.
  const findings = Object.values(parsed.problems ?? {})
    .flat()
    .filter((p) => p.resolutionKind !== 'node10')
    .map((p) => ({
      level: p.kind,
      message: [p.entrypoint, p.resolutionKind, p.fileName].filter(Boolean).join(' '),
    }));
  if (run.code !== 0 && findings.length === 0) throw new CommandError(run, 'attw failed but reported no problem');
  return { findings, run };
}

interface AttwJson {
  readonly problems?: Record<
    string,
    ReadonlyArray<{
      readonly kind: string;
      readonly entrypoint?: string;
      readonly resolutionKind?: string;
      readonly fileName?: string;
    }>
  >;
}
