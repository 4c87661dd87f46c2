import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WORKSPACE_ROOT } from './workspace-packages';

/** A snippet of the README. */
export interface Snippet<T> {
  readonly value: T;
  /** Where it was read from (`README.md`). */
  readonly source: string;
}

/** The README does not hold a marked snippet the way this test reads it. */
export class ReadmeSnippetError extends Error {
  override readonly name = 'ReadmeSnippetError';
}

/** Marker lines the README puts right before the fenced block this test reads. */
export const INSTALL_MARKER = '<!-- install -->';
export const QUICKSTART_MARKER = '<!-- quickstart -->';
export const TSCONFIG_MARKER = '<!-- tsconfig -->';

/**
 * The body of the fenced block (language `lang`) right after the marker line, blank lines between them allowed.
 * Undefined when the marker is missing; a marker not followed by such a block is an error, not a fallback.
 */
export function markedBlock(markdown: string, marker: string, lang: string): string | undefined {
  const lines = markdown.split(/\r?\n/);
  const at = lines.findIndex((line) => line.trim() === marker);
  if (at === -1) return undefined;
  let i = at + 1;
  while (i < lines.length && lines[i]!.trim() === '') i++;
  const fence = /^(```+|~~~+)\s*(\S*)\s*$/.exec(lines[i]?.trim() ?? '');
  if (!fence || fence[2] !== lang) {
    throw new ReadmeSnippetError(
      `${marker} must be followed by a \`\`\`${lang} block; found: ${lines[i] ?? 'end of file'}`,
    );
  }
  const close = lines.findIndex((line, k) => k > i && line.trim().startsWith(fence[1]!));
  if (close === -1) throw new ReadmeSnippetError(`the \`\`\`${lang} block after ${marker} is not closed`);
  return lines.slice(i + 1, close).join('\n');
}

/**
 * The package names of the README's `npm install` line: the one line of the ```sh block after
 * `<!-- install -->` that starts with `npm install`. Names only (a flag or a version would change what every
 * app installs, so they are refused).
 */
export function parseInstallLine(block: string): string[] {
  const commands = block.split('\n').filter((line) => /^\s*npm\s+(install|i)\s/.test(line));
  if (commands.length !== 1) {
    throw new ReadmeSnippetError(
      `the install block must hold exactly one \`npm install\` line, found ${commands.length}`,
    );
  }
  const names = commands[0]!.trim().split(/\s+/).slice(2);
  const bad = names.filter((n) => !/^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/.test(n));
  if (names.length === 0 || bad.length > 0) {
    throw new ReadmeSnippetError(`the install line must list package names only: ${commands[0]!.trim()}`);
  }
  return names;
}

function readme(root: string): string {
  return readFileSync(join(root, 'README.md'), 'utf8');
}

/** The README's install line, as package names. */
export function readmeInstallLine(root = WORKSPACE_ROOT): Snippet<readonly string[]> {
  const block = markedBlock(readme(root), INSTALL_MARKER, 'sh');
  if (block === undefined) throw new ReadmeSnippetError(`README.md has no ${INSTALL_MARKER} block`);
  return { value: parseInstallLine(block), source: 'README.md' };
}

/** The README's quickstart program, the one ```ts block after `<!-- quickstart -->`. */
export function readmeQuickstart(root = WORKSPACE_ROOT): Snippet<string> {
  const block = markedBlock(readme(root), QUICKSTART_MARKER, 'ts');
  if (block === undefined) throw new ReadmeSnippetError(`README.md has no ${QUICKSTART_MARKER} block`);
  return { value: `${block}\n`, source: 'README.md' };
}

/** The tsconfig.json the README tells a newcomer to write for the quickstart, the ```json block after `<!-- tsconfig -->`. */
export function readmeTsconfig(root = WORKSPACE_ROOT): Snippet<{ compilerOptions: Record<string, unknown> }> {
  const block = markedBlock(readme(root), TSCONFIG_MARKER, 'json');
  if (block === undefined) throw new ReadmeSnippetError(`README.md has no ${TSCONFIG_MARKER} block`);
  const parsed = JSON.parse(block) as { compilerOptions?: Record<string, unknown> };
  if (typeof parsed.compilerOptions !== 'object' || parsed.compilerOptions === null) {
    throw new ReadmeSnippetError(`the ${TSCONFIG_MARKER} block has no compilerOptions`);
  }
  return { value: { ...parsed, compilerOptions: parsed.compilerOptions }, source: 'README.md' };
}
