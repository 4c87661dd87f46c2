import { fencedBlocks } from './markdown';

/**
 * The TypeScript blocks of the docs, as the doc-blocks spec compiles and runs them. A block is a ```ts (or
 * ```typescript) fence; the HTML comments on the lines right above its fence say how it is checked:
 *
 * - none: a complete module. It imports everything it uses and compiles as it stands (top-level await allowed:
 *   every block is compiled as an ES module, `.mts`).
 * - `<!-- fragment -->`: a piece of an app. It still imports what it takes from mqkit and other libraries, and may
 *   use the app's own names declared in fragment-context.d.mts (`transport`, `OrderConsumer`, `order`, ...).
 * - `<!-- run -->`: a complete program that also runs, on the embedded broker, and must exit 0 by itself.
 *   `<!-- run: prints "a", "b" -->` also wants those stdout lines; `<!-- run: prints "a", then SIGTERM -->` is a
 *   service: once the lines are out it gets SIGTERM and must then exit 0.
 * - `<!-- fails TS2345: reason -->`: known not to compile yet. It must still fail with that code, so the marker
 *   goes once it compiles.
 * - `<!-- no-compile: reason -->`: not compiled, for the stated reason (pseudo-code, another language's syntax).
 *
 * Markers the other docs checks read (`<!-- quickstart -->`) may stand among them.
 */

/** How a run block ends: by itself, or by a signal once it printed its lines. */
export interface RunSpec {
  /** stdout lines the program must print (each a whole line). */
  readonly prints: readonly string[];
  /** Sent once every line is out; the program must then exit 0. Without it, the program must exit by itself. */
  readonly signal?: 'SIGTERM' | 'SIGINT';
}

/** One TypeScript block of a page, with what its markers ask. */
export interface DocBlock {
  /** The page, as a path from the repository root. */
  readonly page: string;
  /** The line of the opening fence (1-based); the code's line n is the page's line `line + n`. */
  readonly line: number;
  readonly code: string;
  /** `page:line`, how a failure names the block. */
  readonly label: string;
  /** A file stem unique among the blocks (`readme-md-27`). */
  readonly stem: string;
  readonly fragment: boolean;
  readonly run?: RunSpec;
  /** The TS error code it is known to fail with, and why. */
  readonly fails?: { readonly code: string; readonly reason: string };
  /** Why it is not compiled. */
  readonly noCompile?: string;
}

/** Markers of other checks that may stand right above a TypeScript fence. */
const OTHER_MARKERS = new Set(['quickstart']);

const COMMENT = /^ {0,3}<!--\s*(.*?)\s*-->\s*$/;
const TS_INFO = /^(?:ts|typescript)$/;

/** What one marker line asks, or the problem with it. */
type Marker =
  | { kind: 'fragment' }
  | { kind: 'run'; run: RunSpec }
  | { kind: 'fails'; code: string; reason: string }
  | { kind: 'no-compile'; reason: string }
  | { kind: 'other' }
  | { kind: 'bad'; problem: string };

/** `"a", "b"` as strings; undefined unless the text is exactly a comma-separated list of double-quoted strings. */
function quotedList(text: string): string[] | undefined {
  const items: string[] = [];
  const rest = text.replace(/\s*"((?:[^"\\]|\\.)*)"\s*(?:,|$)/g, (_whole, item: string) => {
    items.push(item.replace(/\\(.)/g, '$1'));
    return '';
  });
  return rest === '' && items.length > 0 ? items : undefined;
}

function parseRun(rest: string): Marker {
  if (rest === '') return { kind: 'run', run: { prints: [] } };
  const signal = /,?\s*then (SIGTERM|SIGINT)$/.exec(rest);
  const body = signal ? rest.slice(0, signal.index) : rest;
  const prints = body.startsWith('prints ') ? quotedList(body.slice('prints '.length)) : undefined;
  if (!prints) return { kind: 'bad', problem: `run: wants prints "line", ... [then SIGTERM], not "${rest}"` };
  const run: RunSpec = signal ? { prints, signal: signal[1] as 'SIGTERM' | 'SIGINT' } : { prints };
  return { kind: 'run', run };
}

function parseMarker(text: string): Marker {
  if (text === 'fragment') return { kind: 'fragment' };
  if (text === 'run') return parseRun('');
  if (text.startsWith('run:')) return parseRun(text.slice('run:'.length).trim());
  const fails = /^fails (TS\d+):\s*(.*)$/.exec(text);
  if (fails) {
    if (!fails[2]) return { kind: 'bad', problem: `${text} gives no reason` };
    return { kind: 'fails', code: fails[1]!, reason: fails[2] };
  }
  const skip = /^no-compile(?::\s*(.*))?$/.exec(text);
  if (skip)
    return skip[1] ? { kind: 'no-compile', reason: skip[1] } : { kind: 'bad', problem: `${text} gives no reason` };
  if (OTHER_MARKERS.has(text)) return { kind: 'other' };
  return { kind: 'bad', problem: `unknown marker <!-- ${text} -->` };
}

/** A path as a file stem: `plugins/nestjs/README.md`, 62 gives `plugins-nestjs-readme-md-62`. */
function stemOf(page: string, line: number): string {
  return `${page.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${line}`;
}

/** The page's TypeScript blocks and its marker problems (each `page:line: problem`). */
export function docBlocks(page: string, text: string): { blocks: DocBlock[]; problems: string[] } {
  const lines = text.split('\n');
  const blocks: DocBlock[] = [];
  const problems: string[] = [];
  for (const fence of fencedBlocks(text)) {
    if (!TS_INFO.test(fence.info)) continue;
    const label = `${page}:${fence.line}`;
    const markers: Marker[] = [];
    for (let at = fence.line - 2; at >= 0; at--) {
      const comment = COMMENT.exec(lines[at] ?? '');
      if (!comment) break;
      markers.unshift(parseMarker(comment[1] ?? ''));
    }
    const bad = markers.flatMap((m) => (m.kind === 'bad' ? [`${label}: ${m.problem}`] : []));
    const fragment = markers.some((m) => m.kind === 'fragment');
    const run = markers.find((m) => m.kind === 'run')?.run;
    const failing = markers.find((m) => m.kind === 'fails');
    const skipped = markers.find((m) => m.kind === 'no-compile');
    if (run && (fragment || failing)) bad.push(`${label}: a run block is complete and compiles: no fragment or fails`);
    if (skipped && markers.some((m) => m.kind !== 'no-compile' && m.kind !== 'other'))
      bad.push(`${label}: no-compile stands alone`);
    if (!fence.closed) bad.push(`${label}: the block is never closed`);
    problems.push(...bad);
    if (bad.length > 0) continue;
    blocks.push({
      page,
      line: fence.line,
      code: `${fence.lines.join('\n')}\n`,
      label,
      stem: stemOf(page, fence.line),
      fragment,
      ...(run ? { run } : {}),
      ...(failing ? { fails: { code: failing.code, reason: failing.reason } } : {}),
      ...(skipped ? { noCompile: skipped.reason } : {}),
    });
  }
  return { blocks, problems };
}

/** One tsc error: where (the generated file's line), its code and its message. */
export interface TscDiagnostic {
  /** As tsc prints it, relative to the project (`src/readme-md-27.mts`); empty for a project-wide error. */
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly code: string;
  readonly message: string;
}

/** tsc's `--pretty false` output as diagnostics; a message's indented continuation lines stay with it. */
export function parseTscOutput(output: string): TscDiagnostic[] {
  const out: TscDiagnostic[] = [];
  for (const line of output.split(/\r?\n/)) {
    const located = /^(.+?)\((\d+),(\d+)\): error (TS\d+): (.*)$/.exec(line);
    const global = /^error (TS\d+): (.*)$/.exec(line);
    if (located) {
      const [, file, row, column, code, message] = located;
      out.push({ file: file!, line: Number(row), column: Number(column), code: code!, message: message! });
    } else if (global) {
      out.push({ file: '', line: 0, column: 0, code: global[1]!, message: global[2]! });
    } else if (/^\s+\S/.test(line) && out.length > 0) {
      const last = out.pop()!;
      out.push({ ...last, message: `${last.message}\n${line}` });
    }
  }
  return out;
}

/** A diagnostic in the page's terms: `README.md:40:7 TS2304 Cannot find name 'x'.` */
export function describeDiagnostic(block: DocBlock, diagnostic: TscDiagnostic): string {
  return `${block.page}:${block.line + diagnostic.line}:${diagnostic.column} ${diagnostic.code} ${diagnostic.message}`;
}
