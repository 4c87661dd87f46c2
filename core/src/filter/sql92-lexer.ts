import { Sql92Error } from './sql92-error';

/**
 * Tokens of RocketMQ's SQL92 selector (rocketmq-filter's SelectorParser.jj, 5.3.3). Keywords are
 * case-insensitive and reserved; identifiers are `[A-Za-z_$][A-Za-z0-9_$]*` and case-sensitive; strings are
 * single-quoted with `''` as the only escape; integers are decimal (hex and octal were removed), with an optional
 * L suffix; comments are `/* ... *\/` and `-- ...`.
 */
export type Token =
  | { readonly kind: 'keyword'; readonly value: Keyword; readonly at: number }
  | { readonly kind: 'id'; readonly value: string; readonly at: number }
  | { readonly kind: 'string'; readonly value: string; readonly at: number }
  | { readonly kind: 'integer'; readonly text: string; readonly at: number }
  | { readonly kind: 'float'; readonly text: string; readonly at: number }
  | { readonly kind: 'op'; readonly value: Operator; readonly at: number }
  | { readonly kind: 'end'; readonly at: number };

export const KEYWORDS = [
  'NOT',
  'AND',
  'OR',
  'BETWEEN',
  'IN',
  'TRUE',
  'FALSE',
  'NULL',
  'IS',
  'CONTAINS',
  'STARTSWITH',
  'ENDSWITH',
] as const;
export type Keyword = (typeof KEYWORDS)[number];
const KEYWORD_SET: ReadonlySet<string> = new Set(KEYWORDS);

export type Operator = '=' | '<>' | '>' | '>=' | '<' | '<=' | '(' | ')' | ',' | '+' | '-';

const ID = /[A-Za-z_$][A-Za-z0-9_$]*/y;
const INTEGER = /(?:[1-9][0-9]*[lL]?|0)/y;
const FLOAT = /(?:[0-9]+\.[0-9]*(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+)/y;
const WHITESPACE = /[ \t\n\r\f]+/y;

function matchAt(pattern: RegExp, text: string, at: number): string | undefined {
  pattern.lastIndex = at;
  return pattern.exec(text)?.[0];
}

export function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  const n = expression.length;
  while (at < n) {
    const space = matchAt(WHITESPACE, expression, at);
    if (space) {
      at += space.length;
      continue;
    }
    if (expression.startsWith('/*', at)) {
      const end = expression.indexOf('*/', at + 2);
      if (end < 0) throw new Sql92Error(expression, at, 'a comment opened with /* is never closed');
      at = end + 2;
      continue;
    }
    // RocketMQ's line comment needs a newline; at the end of input it is ignored text there, so it is one here too.
    if (expression.startsWith('--', at)) {
      const end = expression.indexOf('\n', at);
      at = end < 0 ? n : end + 1;
      continue;
    }
    const c = expression[at]!;
    if (c === "'") {
      let value = '';
      let i = at + 1;
      for (;;) {
        const quote = expression.indexOf("'", i);
        if (quote < 0) throw new Sql92Error(expression, at, 'a string opened with a quote is never closed');
        value += expression.slice(i, quote);
        if (expression[quote + 1] === "'") {
          value += "'";
          i = quote + 2;
          continue;
        }
        i = quote + 1;
        break;
      }
      tokens.push({ kind: 'string', value, at });
      at = i;
      continue;
    }
    // JavaCC takes the longest match: `5.5` is a float, `5` an integer.
    const float = matchAt(FLOAT, expression, at);
    const integer = matchAt(INTEGER, expression, at);
    if (float !== undefined && float.length > (integer?.length ?? 0)) {
      tokens.push({ kind: 'float', text: float, at });
      at += float.length;
      continue;
    }
    if (integer !== undefined) {
      tokens.push({ kind: 'integer', text: integer, at });
      at += integer.length;
      continue;
    }
    const id = matchAt(ID, expression, at);
    if (id !== undefined) {
      const upper = id.toUpperCase();
      tokens.push(
        KEYWORD_SET.has(upper) ? { kind: 'keyword', value: upper as Keyword, at } : { kind: 'id', value: id, at },
      );
      at += id.length;
      continue;
    }
    const two = expression.slice(at, at + 2);
    if (two === '<>' || two === '>=' || two === '<=') {
      tokens.push({ kind: 'op', value: two, at });
      at += 2;
      continue;
    }
    if ('=><(),+-'.includes(c)) {
      tokens.push({ kind: 'op', value: c as Operator, at });
      at += 1;
      continue;
    }
    throw new Sql92Error(
      expression,
      at,
      `${JSON.stringify(c)} is not part of RocketMQ's SQL92 (no != , ==, *, / or double quotes)`,
    );
  }
  tokens.push({ kind: 'end', at: n });
  return tokens;
}
