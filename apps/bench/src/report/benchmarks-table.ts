import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CASES } from '../cases/index';
import { readAllResults } from './bench-results';
import { rerunNote } from './rerun';

/** The repository's README (dist/report and src/report are both four levels under the root). */
const README = resolve(__dirname, '..', '..', '..', '..', 'README.md');
const START =
  '<!-- bench-table:start (written by `npm run bench -- all` from apps/bench/results; edit the cases, not this table) -->';
const END = '<!-- bench-table:end -->';

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The performance table: one row per case with a results file, in CASES order, each citing its command and date. */
export function renderTable(): { table: string; cases: string[] } {
  const results = readAllResults();
  const lines = ['| case | what is measured | result (from the results file) | target |', '| --- | --- | --- | --- |'];
  const cases: string[] = [];
  for (const c of CASES) {
    const file = results.get(c.name);
    if (!file || !c.readmeRow) continue;
    const row = c.readmeRow(file);
    const source = `${file.finishedAt.slice(0, 10)}, \`${file.command}\`, apps/bench/results/${c.name}.json${rerunNote(file.rerun)}`;
    lines.push(
      `| \`${c.name}\` | ${cell(row.measured)} | ${cell(row.result)} (${cell(source)}) | ${cell(row.target)} |`,
    );
    cases.push(c.name);
  }
  return { table: lines.join('\n'), cases };
}

/** Rewrites the table between the README's markers; returns the cases it has rows for. */
export function refreshReadme(path = README): string[] {
  const text = readFileSync(path, 'utf8');
  const from = text.indexOf(START);
  const to = text.indexOf(END);
  if (from < 0 || to < from) throw new Error(`${path} has no bench table markers (${START} ... ${END})`);
  const { table, cases } = renderTable();
  writeFileSync(path, `${text.slice(0, from + START.length)}\n${table}\n${text.slice(to)}`);
  return cases;
}
