import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CASES } from '../cases/index';
import { readAllResults } from './bench-results';
import { alignedTable } from './markdown-table';
import { rerunNote } from './rerun';

/** The benchmarks guide, whose table this writes (dist/report and src/report are both four levels under the root). */
export const BENCHMARKS_GUIDE = resolve(__dirname, '..', '..', '..', '..', 'docs', 'benchmarks.md');
const START =
  '<!-- bench-table:start (written by `npm run bench -- all` from apps/bench/results; edit the cases, not this table) -->';
const END = '<!-- bench-table:end -->';

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The benchmarks table: one row per case with a results file, in CASES order, each citing its command and date. */
export function renderTable(): { table: string; cases: string[] } {
  const results = readAllResults();
  const rows: string[][] = [['case', 'what is measured', 'result (from the results file)', 'target']];
  const cases: string[] = [];
  for (const c of CASES) {
    const file = results.get(c.name);
    if (!file || !c.tableRow) continue;
    const row = c.tableRow(file);
    const source = `${file.finishedAt.slice(0, 10)}, \`${file.command}\`, apps/bench/results/${c.name}.json${rerunNote(file.rerun)}`;
    rows.push([`\`${c.name}\``, cell(row.measured), `${cell(row.result)} (${cell(source)})`, cell(row.target)]);
    cases.push(c.name);
  }
  return { table: alignedTable(rows), cases };
}

/** Rewrites the table between the markers of docs/benchmarks.md (or `path`); returns the cases it has rows for. */
export function refreshBenchmarksTable(path = BENCHMARKS_GUIDE): string[] {
  const text = readFileSync(path, 'utf8');
  const from = text.indexOf(START);
  const to = text.indexOf(END);
  if (from < 0 || to < from) throw new Error(`${path} has no bench table markers (${START} ... ${END})`);
  const { table, cases } = renderTable();
  writeFileSync(path, `${text.slice(0, from + START.length)}\n${table}\n${text.slice(to)}`);
  return cases;
}
