/**
 * Just enough Markdown reading for the docs checks: code blocks, headings with GitHub's anchor slugs, and links.
 * Line numbers are 1-based and survive the stripping of code, so a problem can name where it is.
 */

/** A link or image target found outside code, with the line it is on. */
export interface MarkdownLink {
  readonly target: string;
  readonly line: number;
}

/** A fenced code block: its info string (```ts gives `ts`), its lines, and the line of its opening fence. */
export interface FencedBlock {
  readonly info: string;
  readonly lines: readonly string[];
  readonly line: number;
  readonly closed: boolean;
}

/** One line of a page: whether it opens or closes a fence, or lies inside one. */
interface ScannedLine {
  readonly text: string;
  readonly kind: 'prose' | 'open' | 'code' | 'close';
  readonly info: string;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** Classifies every line: a fence closes only with the same character, at least as long, and nothing after it. */
function scan(text: string): ScannedLine[] {
  let fence: string | undefined;
  return text.split('\n').map((line): ScannedLine => {
    const match = FENCE.exec(line);
    const marks = match?.[1] ?? '';
    const info = (match?.[2] ?? '').trim();
    if (fence === undefined) {
      if (!match) return { text: line, kind: 'prose', info: '' };
      fence = marks;
      return { text: line, kind: 'open', info };
    }
    if (match && marks[0] === fence[0] && marks.length >= fence.length && info === '') {
      fence = undefined;
      return { text: line, kind: 'close', info: '' };
    }
    return { text: line, kind: 'code', info: '' };
  });
}

/** Every fenced code block, in order; an unclosed one runs to the end of the text (`closed: false`). */
export function fencedBlocks(text: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  let open: { info: string; line: number; lines: string[] } | undefined;
  scan(text).forEach((line, index) => {
    if (line.kind === 'open') open = { info: line.info, line: index + 1, lines: [] };
    else if (line.kind === 'code') open?.lines.push(line.text);
    else if (line.kind === 'close' && open) {
      blocks.push({ ...open, closed: true });
      open = undefined;
    }
  });
  if (open) blocks.push({ ...open, closed: false });
  return blocks;
}

/** The text with fenced blocks and inline code blanked out, line for line, so nothing in code counts as prose. */
export function prose(text: string): string {
  return scan(text)
    .map((line) =>
      line.kind === 'prose' ? line.text.replace(/(`+)(?:(?!\1).)+?\1/g, (c) => ' '.repeat(c.length)) : '',
    )
    .join('\n');
}

/** ATX headings (`## Title`) outside code, as their plain text. */
export function headings(text: string): string[] {
  const out: string[] = [];
  for (const line of scan(text)) {
    if (line.kind !== 'prose') continue;
    const heading = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line.text);
    if (heading?.[1] !== undefined) out.push(heading[1]);
  }
  return out;
}

/**
 * GitHub's anchor for a heading (github-slugger): the rendered text, lower-cased, with everything but letters,
 * digits, marks, connector punctuation (`_`), spaces and hyphens removed, and spaces turned into hyphens.
 */
export function githubSlug(heading: string): string {
  const rendered = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images keep their text
    .replace(/<[^>]+>/g, ''); // inline HTML tags
  return rendered
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a page has: its headings' slugs (a repeated slug gets -1, -2, ... as on GitHub) and HTML ids. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const heading of headings(text)) {
    const base = githubSlug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    out.add(count === 0 ? base : `${base}-${count}`);
  }
  for (const match of prose(text).matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) if (match[1]) out.add(match[1]);
  return out;
}

/** Inline links and images (`[text](target)`), reference definitions (`[x]: target`) and HTML href/src, outside code. */
export function links(text: string): MarkdownLink[] {
  const out: MarkdownLink[] = [];
  prose(text)
    .split('\n')
    .forEach((line, index) => {
      const targets = [
        ...[...line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]),
        /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(line)?.[1],
        ...[...line.matchAll(/\b(?:href|src)="([^"]+)"/g)].map((m) => m[1]),
      ];
      for (const target of targets) if (target) out.push({ target, line: index + 1 });
    });
  return out;
}

/** Whether a link target names a scheme (`https:`, `mailto:`): such links leave the repository. */
export function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');
}
