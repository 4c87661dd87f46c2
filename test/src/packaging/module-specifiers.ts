import { builtinModules } from 'node:module';

/**
 * Finds the module specifiers a shipped .js or .d.ts file uses, for the reachability walk and the rule that every
 * package the shipped code imports is declared. The files are tsc's output, so a small lexer is enough: comments
 * are blanked first (TSDoc examples in .d.ts files hold import lines that are not imports), strings and regular
 * expression literals are kept intact.
 */

/** Keywords after which a `/` starts a regular expression, not a division. */
const REGEX_AFTER_WORD = new Set([
  'return',
  'typeof',
  'case',
  'do',
  'else',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'instanceof',
  'yield',
  'await',
]);

/** Punctuation after which a `/` starts a regular expression. */
const REGEX_AFTER_PUNCT = new Set([...'(,=:[!&|?{};+-*%<>~^']);

/** The code with every comment replaced by spaces (line breaks kept), so positions and lines stay the same. */
export function blankComments(code: string): string {
  const out = code.split('');
  let i = 0;
  let lastSignificant = '';
  let lastWord = '';
  const blank = (from: number, to: number): void => {
    for (let k = from; k < to; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  while (i < code.length) {
    const c = code[i]!;
    const next = code[i + 1];
    if (c === '/' && next === '/') {
      const end = code.indexOf('\n', i);
      const stop = end === -1 ? code.length : end;
      blank(i, stop);
      i = stop;
    } else if (c === '/' && next === '*') {
      const end = code.indexOf('*/', i + 2);
      const stop = end === -1 ? code.length : end + 2;
      blank(i, stop);
      i = stop;
    } else if (c === '"' || c === "'" || c === '`') {
      i = skipString(code, i);
      lastSignificant = c;
      lastWord = '';
    } else if (
      c === '/' &&
      (lastSignificant === '' || REGEX_AFTER_PUNCT.has(lastSignificant) || REGEX_AFTER_WORD.has(lastWord))
    ) {
      i = skipRegex(code, i);
      lastSignificant = '/';
      lastWord = '';
    } else if (/[A-Za-z0-9_$]/.test(c)) {
      let j = i;
      while (j < code.length && /[A-Za-z0-9_$]/.test(code[j]!)) j++;
      lastWord = code.slice(i, j);
      lastSignificant = code[j - 1]!;
      i = j;
    } else {
      if (!/\s/.test(c)) {
        lastSignificant = c;
        lastWord = '';
      }
      i++;
    }
  }
  return out.join('');
}

/** Index after the string literal starting at `start` (template literals: `${…}` parts are skipped by depth). */
function skipString(code: string, start: number): number {
  const quote = code[start];
  let i = start + 1;
  let depth = 0;
  while (i < code.length) {
    const c = code[i]!;
    if (c === '\\') i += 2;
    else if (quote === '`' && c === '$' && code[i + 1] === '{') {
      depth++;
      i += 2;
    } else if (quote === '`' && depth > 0 && c === '}') {
      depth--;
      i++;
    } else if (c === quote && depth === 0) return i + 1;
    else if (c === '\n' && quote !== '`') return i;
    else i++;
  }
  return i;
}

/** Index after the regular expression literal starting at `start`, flags included. */
function skipRegex(code: string, start: number): number {
  let i = start + 1;
  let inClass = false;
  while (i < code.length) {
    const c = code[i]!;
    if (c === '\\') i += 2;
    else if (c === '\n') return i;
    else if (inClass) {
      if (c === ']') inClass = false;
      i++;
    } else if (c === '[') {
      inClass = true;
      i++;
    } else if (c === '/') {
      i++;
      while (i < code.length && /[a-z]/.test(code[i]!)) i++;
      return i;
    } else i++;
  }
  return i;
}

/**
 * The forms a module specifier takes in tsc's CommonJS and declaration output (and in hand-written bin files).
 * `require(` and `import(` count only where no `.`, word character or `$` precedes them: a method of that name
 * (core's `host.require('sender')`) loads no module.
 */
const SPECIFIER_PATTERNS = [
  /(?<![.\w$])require\s*\(\s*(['"])([^'"\n]+)\1\s*\)/g,
  /(?<![.\w$])import\s*\(\s*(['"])([^'"\n]+)\1/g,
  /(?<![.\w$])from\s*(['"])([^'"\n]+)\1/g,
  /(?<![.\w$])import\s*(['"])([^'"\n]+)\1/g,
];

/** Every module specifier of a .js/.cjs/.mjs/.d.ts file, outside comments. */
export function moduleSpecifiers(code: string): string[] {
  const stripped = blankComments(code);
  const found = new Set<string>();
  for (const pattern of SPECIFIER_PATTERNS) for (const m of stripped.matchAll(pattern)) found.add(m[2]!);
  // Triple-slash references are comments by syntax, so they are read from the original text.
  for (const m of code.matchAll(/^\/\/\/\s*<reference\s+path\s*=\s*(['"])([^'"]+)\1/gm)) found.add(m[2]!);
  return [...found];
}

/** The file's `//# sourceMappingURL=` target, unless it is an inline data: URL. */
export function sourceMapUrl(code: string): string | undefined {
  const matches = [...code.matchAll(/^\/\/[#@]\s*sourceMappingURL=(\S+)\s*$/gm)];
  const url = matches.at(-1)?.[1];
  return url && !url.startsWith('data:') ? decodeURI(url) : undefined;
}

const BUILTINS = new Set(builtinModules);

/**
 * The package a bare specifier loads (`@scope/name/sub` is `@scope/name`, `name/sub` is `name`); undefined for a
 * relative or absolute path and for Node's built-in modules, which no manifest declares.
 */
export function packageOfSpecifier(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  const name = (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
  return BUILTINS.has(name) ? undefined : name;
}
