import { renderTable } from './table';

/** Where a command writes: a table for people, or JSON for scripts (`--json`). */
export interface Output {
  readonly json: boolean;
  /** One value: JSON, or the text `human()` renders. */
  result(value: unknown, human: () => string): void;
  /** A table (`--json`: an array of objects keyed by the header). */
  table(header: readonly string[], rows: ReadonlyArray<readonly (string | number)[]>, value?: unknown): void;
  line(text: string): void;
}

export function output(json: boolean, write: (text: string) => void = (t) => void process.stdout.write(t)): Output {
  return {
    json,
    result: (value, human) => write(`${json ? JSON.stringify(value) : human()}\n`),
    table: (header, rows, value) => {
      if (json)
        write(`${JSON.stringify(value ?? rows.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]]))))}\n`);
      else write(`${renderTable(header, rows)}\n`);
    },
    line: (text) => write(`${text}\n`),
  };
}
