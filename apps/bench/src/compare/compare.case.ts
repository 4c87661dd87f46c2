import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchCase } from '../cases/bench-case';
import { log, median, textFlag } from '../cases/bench-util';
import { commitVariant, workspaceRoot, worktreeVariant, type Variant } from './variant-tree';

/** Runs one case of one variant in a process of its own; resolves with its JSON result line. */
function runOnce(variant: Variant, target: string, args: readonly string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--expose-gc', join(variant.root, 'apps', 'bench', 'dist', 'main.js'), target, ...args],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, MQKIT_BENCH_NO_RESULTS: '1' } },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-20_000)));
    child.on('error', reject);
    child.on('close', (code) => {
      const line = stdout.trim().split('\n').pop() ?? '';
      try {
        if (code !== 0) throw new Error(`exit ${code}`);
        resolve(JSON.parse(line) as Record<string, unknown>);
      } catch (error) {
        reject(
          new Error(
            `${variant.label} ${target} failed (${(error as Error).message}):\n${stdout.slice(-2000)}\n${stderr.slice(-3000)}`,
          ),
        );
      }
    });
  });
}

/** Medians of every numeric field over the runs. */
function medians(runs: readonly Record<string, unknown>[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const key of Object.keys(runs[0] ?? {})) {
    const values = runs.map((r) => r[key]).filter((v): v is number => typeof v === 'number');
    if (values.length === runs.length) out[key] = median(values);
  }
  return out;
}

/**
 * `npm run bench -- compare --base <rev|worktree> [--head <rev>] [--head-extra "<flags>"] [--runs 5] <case> [case
 * flags]`: the same case on two checkouts (or one, with extra flags on the head side), each run in a process of its own, alternating base and head so that load on the machine falls on both
 * alike. Head is the working tree unless --head names a commit. Prints the median of every numeric field of each
 * side and head/base, and writes every run to reports/bench/compare-<case>.json.
 */
export const compareCase: BenchCase = {
  name: 'compare',
  embedded: false,
  writesResults: false,
  description:
    'one case on two checkouts (base commit vs working tree or head commit), alternating runs, each in its own process',
  async run(args) {
    const base = textFlag(args, 'base');
    if (!base) throw new Error('compare needs --base <rev> (e.g. --base HEAD~1) and a case name');
    const headRev = textFlag(args, 'head');
    const runs = Number(textFlag(args, 'runs') ?? 5);
    if (!Number.isInteger(runs) || runs < 1)
      throw new Error(`--runs needs a whole number >= 1 (got ${textFlag(args, 'runs')})`);
    // Extra flags for the head side only: the same checkout with and without a feature (`--base worktree`).
    const headExtra = (textFlag(args, 'head-extra') ?? '').split(/\s+/).filter((a) => a !== '');
    const own = new Set(['--base', '--head', '--runs', '--head-extra']);
    const rest = args.filter((a, i) => !own.has(a) && !own.has(args[i - 1] ?? ''));
    const [target, ...caseArgs] = rest;
    if (!target || target.startsWith('--') || target === 'compare')
      throw new Error('compare needs the case to run, e.g. compare --base HEAD~1 pipeline');
    const baseVariant = base === 'worktree' ? worktreeVariant() : commitVariant(base, log);
    const headVariant = headRev ? commitVariant(headRev, log) : worktreeVariant();
    log(
      `compare ${target} ${caseArgs.join(' ')}: base ${baseVariant.label} vs head ${headVariant.label}${headExtra.length > 0 ? ` with ${headExtra.join(' ')}` : ''}${headVariant.dirty ? ' (uncommitted changes)' : ''}, ${runs} runs each, alternating`,
    );
    const results: { base: Record<string, unknown>[]; head: Record<string, unknown>[] } = { base: [], head: [] };
    for (let i = 0; i < runs; i++) {
      // Alternate which goes first, so neither always runs on a machine the other just warmed or loaded.
      const order: ['base' | 'head', Variant][] =
        i % 2 === 0
          ? [
              ['base', baseVariant],
              ['head', headVariant],
            ]
          : [
              ['head', headVariant],
              ['base', baseVariant],
            ];
      for (const [side, variant] of order) {
        const result = await runOnce(variant, target, side === 'head' ? [...caseArgs, ...headExtra] : caseArgs);
        results[side].push(result);
        log(`run ${i + 1} ${side}: ${JSON.stringify(result)}`);
      }
    }
    const [b, h] = [medians(results.base), medians(results.head)];
    const fields: Record<string, { base: number; head: number; ratio: number }> = {};
    for (const key of Object.keys(b))
      if (key in h && b[key] !== 0)
        fields[key] = { base: b[key]!, head: h[key]!, ratio: Math.round((h[key]! / b[key]!) * 1000) / 1000 };
    const summary = {
      target,
      caseArgs,
      headExtra,
      runs,
      base: { label: baseVariant.label, commit: baseVariant.commit },
      head: { label: headVariant.label, commit: headVariant.commit, dirty: headVariant.dirty },
      medians: fields,
    };
    const dir = join(workspaceRoot(), 'reports', 'bench');
    mkdirSync(dir, { recursive: true });
    const suffix =
      headExtra.length > 0
        ? `-${headExtra
            .join('-')
            .replace(/[^a-zA-Z0-9,]+/g, '-')
            .replace(/^-+|-+$/g, '')}`
        : '';
    writeFileSync(
      join(dir, `compare-${target}${suffix}.json`),
      `${JSON.stringify({ ...summary, at: new Date().toISOString(), results }, null, 2)}\n`,
    );
    return summary;
  },
};
