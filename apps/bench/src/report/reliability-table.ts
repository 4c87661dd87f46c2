import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ClientFigures, Figure, VariantFigures } from '../chaos/chaos-results';
import { readAllResults, type ResultsFile } from './bench-results';
import { alignedTable } from './markdown-table';

/** The reliability guide, whose chaos table this writes (dist/report and src/report are four levels under the root). */
export const RELIABILITY_GUIDE = resolve(__dirname, '..', '..', '..', '..', 'docs', 'reliability.md');
export const RELIABILITY_START =
  '<!-- chaos-table:start (written by `npm run bench -- chaos` and `npm run bench -- readme` from apps/bench/results/chaos.json; edit apps/bench/src/report/reliability-table.ts, not this table) -->';
export const RELIABILITY_END = '<!-- chaos-table:end -->';

/** What the chaos case keeps beside its last line (RESULT_DETAIL), as far as the table reads it. */
interface ChaosDetail {
  readonly seed: number;
  readonly seeds: readonly number[];
  readonly worseMarginPct: number;
  readonly scenarios: readonly { readonly id: string; readonly title: string }[];
  readonly variants: readonly VariantFigures[];
}

const ROMAN = ['i', 'ii', 'iii', 'iv', 'v', 'vi'];

const num = (n: number): string => (Number.isInteger(n) ? n : Number(n.toFixed(1))).toLocaleString('en-US');
const pair = (f: Figure | undefined): string => (f ? `${num(f.median)} · ${num(f.worst)}` : '–');
const both = (m: Figure | undefined, j: Figure | undefined): string => `${pair(m)} / ${pair(j)}`;
const duplicates = (c: ClientFigures | undefined): string =>
  c
    ? `${num(c.duplicates.median)} (${c.duplicatesPct.median.toFixed(1)} %) · ${num(c.duplicates.worst)} (${c.duplicatesPct.worst.toFixed(1)} %)`
    : '–';

const ms = (n: number): string => (n < 1_000 ? `${Math.round(n)} ms` : `${(n / 1_000).toFixed(2)} s`);
const resume = (f: Figure | undefined): string => (f ? `${ms(f.median)} · ${ms(f.worst)}` : '–');

function chaosDetail(file: ResultsFile): ChaosDetail | undefined {
  const detail = file.detail as Partial<ChaosDetail> | undefined;
  return detail && Array.isArray(detail.variants) && Array.isArray(detail.seeds) && Array.isArray(detail.scenarios)
    ? (detail as ChaosDetail)
    : undefined;
}

/**
 * The chaos table and the lines under it, from a chaos results file: one row per scenario and mode with each
 * client's median and worst run over the seeds, then the command, date, seeds and totals. Undefined for a file that
 * has no per-scenario figures (written before the runs were seeded).
 */
export function renderReliability(file: ResultsFile): string | undefined {
  const detail = chaosDetail(file);
  if (!detail) return undefined;
  const title = (id: string): string => {
    const t = detail.scenarios.find((s) => s.id === id)?.title ?? id;
    return ROMAN.includes(id) ? `${id}. ${t}` : `${id}: ${t}`;
  };
  const rows: string[][] = [
    [
      'scenario',
      'mode',
      'acknowledged per run: mqkit / Java',
      'lost: mqkit / Java',
      'duplicates: mqkit',
      'duplicates: Java',
      'order violations: mqkit / Java',
      'seeds with mqkit worse',
      'consuming again after the fault: mqkit / Java',
    ],
  ];
  for (const v of detail.variants) {
    rows.push([
      title(v.id),
      v.mode,
      `${num(v.mqkit?.acknowledged.median ?? 0)} / ${num(v.java?.acknowledged.median ?? 0)}`,
      both(v.mqkit?.lost, v.java?.lost),
      duplicates(v.mqkit),
      duplicates(v.java),
      v.mode === 'ORDERLY' ? both(v.mqkit?.orderViolations, v.java?.orderViolations) : '–',
      `${v.mqkitWorseSeeds} of ${v.seeds.length}`,
      `${resume(v.mqkit?.resumeMs)} / ${resume(v.java?.resumeMs)}`,
    ]);
  }
  const r = file.result as Record<string, number>;
  const minutes = Math.round(file.durationSec / 60);
  const seeds = detail.seeds.join(', ');
  const lines = [
    `Each cell: median · worst run over the seeds (duplicates also as a share of the run's acknowledged messages);` +
      ` order violations in ORDERLY runs only (a message first handled after a later offset of its own queue);` +
      ` "seeds with mqkit worse": seeds in which mqkit's duplicate share exceeded Java's by more than` +
      ` ${detail.worseMarginPct} points. From \`${file.command}\` (${file.finishedAt.slice(0, 10)}, about ${minutes} min` +
      ` on a ${file.machine.cores}-core machine; seeds ${seeds}; apps/bench/results/chaos.json).`,
    '',
    `Totals over ${r.scenarios} scenario × mode variants and ${r.seeds} seed${r.seeds === 1 ? '' : 's'}, both clients: ${num(r.acknowledged ?? 0)} acknowledged messages,` +
      ` lost ${num(r.mqkitLost ?? 0)} (mqkit) and ${num(r.javaLost ?? 0)} (Java), duplicates` +
      ` **${num(r.mqkitDuplicates ?? 0)}** (mqkit) against ${num(r.javaDuplicates ?? 0)} (Java), mqkit worse in` +
      ` ${num(r.mqkitWorseSeeds ?? 0)} of the ${num((r.scenarios ?? 0) * (r.seeds ?? 0))} scenario × mode × seed runs, order violations ${num(r.mqkitOrderViolations ?? 0)} (mqkit) and` +
      ` ${num(r.javaOrderViolations ?? 0)} (Java).`,
  ];
  return `${alignedTable(rows)}\n\n${lines.join('\n')}`;
}

/**
 * Rewrites the chaos table between the markers of docs/reliability.md (or `path`) from apps/bench/results/chaos.json
 * (or `file`); leaves the guide as it is when there is no such file, or one without per-scenario figures. Returns
 * what it did, for the log.
 */
export function refreshReliabilityTable(
  path = RELIABILITY_GUIDE,
  file: ResultsFile | undefined = readAllResults().get('chaos'),
): string {
  const text = readFileSync(path, 'utf8');
  const from = text.indexOf(RELIABILITY_START);
  const to = text.indexOf(RELIABILITY_END);
  if (from < 0 || to < from)
    throw new Error(`${path} has no chaos table markers (${RELIABILITY_START} ... ${RELIABILITY_END})`);
  const table = file && renderReliability(file);
  if (!table) return `${path}: chaos table left as it is (no seeded results in apps/bench/results/chaos.json)`;
  writeFileSync(path, `${text.slice(0, from + RELIABILITY_START.length)}\n${table}\n${text.slice(to)}`);
  return `${path}: chaos table rewritten from apps/bench/results/chaos.json (${file.finishedAt})`;
}
