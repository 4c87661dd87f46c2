/** A cell's width as the formatter counts it: in code points. */
const width = (text: string): number => [...text].length;

/** Columns padded to their widest cell, as the formatter (Biome) writes Markdown tables, so a rewrite stays formatted. */
export function alignedTable(rows: readonly string[][]): string {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(3, ...rows.map((row) => width(row[i] ?? ''))));
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((text, i) => text + ' '.repeat((widths[i] ?? 0) - width(text))).join(' | ')} |`;
  const [head = [], ...body] = rows;
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}
