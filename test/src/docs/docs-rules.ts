import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { anchors, fencedBlocks, isExternal, links, prose } from './markdown';

/**
 * The rules the README, the guides and the package READMEs keep. Each check takes the text (and a way to read
 * other files) and returns its problems as readable lines, so a spec can feed it a broken page and see it fail.
 */

/** Reads a repository file by its path from the root; undefined when there is none. */
export type ReadFile = (path: string) => string | undefined;

export const README_MAX_LINES = 250;

/** The packages the README's install line must name (the list; more may follow). */
export const INSTALL_REQUIRED = ['@mqkit/core', '@mqkit/transport-rocketmq', 'reflect-metadata', 'tsyringe'];

/**
 * Strings that point at design files outside the repository, which the docs replaced. The file names are built
 * from their stems so this list is not itself a reference to them.
 */
export const OUTSIDE_REFERENCES = [
  '../shared',
  'shared/reference',
  'shared/design',
  ...[
    'ARCHITECTURE',
    'consumer-semantics',
    'producer-semantics',
    'rocketmq-remoting',
    'features-protocol',
    'prior-art',
    'toolchain',
  ].map((stem) => `${stem}.md`),
];

/** http(s) links allowed in the checked Markdown files. None: everything a reader needs is in the repository. */
export const ALLOWED_EXTERNAL_LINKS: readonly string[] = [];

/** The block right after a marker line: the marker must be followed at once by one fenced block of `info`. */
function blockAfter(text: string, marker: string, info: string): { problems: string[]; lines: readonly string[] } {
  const lines = text.split('\n');
  const at = lines.findIndex((line) => line.trim() === marker);
  if (at < 0) return { problems: [`no line ${marker}`], lines: [] };
  if (lines.filter((line) => line.trim() === marker).length > 1) return { problems: [`${marker} twice`], lines: [] };
  const block = fencedBlocks(lines.slice(at + 1).join('\n'))[0];
  if (block?.line !== 1) return { problems: [`${marker} is not directly followed by a code block`], lines: [] };
  const problems: string[] = [];
  if (block.info !== info) problems.push(`the block after ${marker} is \`\`\`${block.info}, not \`\`\`${info}`);
  if (!block.closed) problems.push(`the block after ${marker} is never closed`);
  return { problems, lines: block.lines };
}

/** The README's length, its install and quickstart blocks, and its two fresh-machine commands. */
export function readmeProblems(text: string): string[] {
  const problems: string[] = [];
  const count = text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
  if (count >= README_MAX_LINES) problems.push(`README.md has ${count} lines; it must stay under ${README_MAX_LINES}`);

  const install = blockAfter(text, '<!-- install -->', 'sh');
  problems.push(...install.problems);
  if (install.problems.length === 0) {
    if (install.lines.length !== 1) problems.push(`the install block has ${install.lines.length} lines, not one`);
    const words = (install.lines[0] ?? '').trim().split(/\s+/);
    if (words[0] !== 'npm' || words[1] !== 'install') problems.push('the install block is not an `npm install` line');
    for (const name of words.slice(2))
      if (!/^(@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*$/.test(name))
        problems.push(`the install line names ${name}: package names only, no versions or flags`);
    for (const name of INSTALL_REQUIRED)
      if (!words.includes(name)) problems.push(`the install line does not name ${name}`);
  }

  const quickstart = blockAfter(text, '<!-- quickstart -->', 'ts');
  problems.push(...quickstart.problems);
  if (quickstart.problems.length === 0) {
    const code = quickstart.lines;
    if (!code.some((line) => /^import 'reflect-metadata';/.test(line)))
      problems.push("the quickstart does not import 'reflect-metadata' first");
    code.forEach((line, index) => {
      // Function bodies are indented, so an await at column 0 is a top-level await (TS1309 in CommonJS).
      if (/^(?![\s/]).*\bawait\b/.test(line))
        problems.push(`the quickstart has a top-level await on its line ${index + 1} (not CommonJS)`);
      if (line.length > 120) problems.push(`the quickstart's line ${index + 1} is ${line.length} columns (max 120)`);
    });
  }

  const fresh = freshMachineCommands(text);
  if (!fresh) problems.push('no "Two commands on a fresh machine" section with a ```sh block');
  else {
    if (!/^npm ci && npm start(\s|$)/.test(fresh[0] ?? ''))
      problems.push('the first fresh-machine command is not `npm ci && npm start`');
    if (!/^npm test(\s|$)/.test(fresh[1] ?? '')) problems.push('the second fresh-machine command is not `npm test`');
  }
  return problems;
}

/** The first sh block under the README's "Two commands on a fresh machine" heading. */
function freshMachineCommands(text: string): readonly string[] | undefined {
  const start = text.search(/^## Two commands on a fresh machine\s*$/m);
  if (start < 0) return undefined;
  const block = fencedBlocks(text.slice(start)).find((b) => b.info === 'sh');
  return block?.lines.map((line) => line.trim());
}

/**
 * Every relative link of a page resolves: its file exists, and its `#anchor` is a heading of that page (GitHub's
 * slugs) when the target is Markdown. External links must be in ALLOWED_EXTERNAL_LINKS.
 */
export function linkProblems(path: string, text: string, read: ReadFile, exists: (path: string) => boolean): string[] {
  const problems: string[] = [];
  for (const { target, line } of links(text)) {
    const where = `${path}:${line}`;
    if (isExternal(target)) {
      if (!ALLOWED_EXTERNAL_LINKS.includes(target)) problems.push(`${where}: external link ${target}`);
      continue;
    }
    if (target.startsWith('/')) {
      problems.push(`${where}: ${target} is absolute; links are relative`);
      continue;
    }
    const hash = target.indexOf('#');
    const file = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
    const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
    const resolved = file === '' ? path : join(dirname(path), file).split(sep).join('/');
    if (resolved.startsWith('../')) {
      problems.push(`${where}: ${target} leaves the repository`);
      continue;
    }
    if (!exists(resolved)) {
      problems.push(`${where}: ${target} is not a file of the repository (${resolved})`);
      continue;
    }
    if (anchor !== undefined && resolved.endsWith('.md')) {
      const page = read(resolved) ?? '';
      if (!anchors(page).has(anchor)) problems.push(`${where}: ${resolved} has no heading #${anchor}`);
    }
  }
  return problems;
}

/** A guide under docs/ opens with its title and a paragraph that says what it covers and links to the README. */
export function guideProblems(path: string, text: string): string[] {
  const lines = text.split('\n');
  const first = lines.findIndex((line) => line.trim() !== '');
  if (!/^# \S/.test(lines[first] ?? '')) return [`${path} does not start with a # title`];
  const paragraph: string[] = [];
  for (const line of lines.slice(first + 1)) {
    if (line.trim() === '' && paragraph.length > 0) break;
    if (line.trim() !== '') paragraph.push(line);
  }
  const opening = paragraph[0];
  if (opening === undefined || /^(?:#|\||```|<|- )/.test(opening)) return [`${path} has no opening paragraph`];
  if (prose(paragraph.join('\n')).includes('](../README.md')) return [];
  return [`${path}'s opening paragraph does not link to ../README.md`];
}

/** Lines of a file that mention a design file outside the repository. */
export function outsideReferenceProblems(path: string, text: string): string[] {
  const problems: string[] = [];
  text.split('\n').forEach((line, index) => {
    for (const needle of OUTSIDE_REFERENCES)
      if (line.includes(needle)) problems.push(`${path}:${index + 1}: mentions ${needle}`);
  });
  return problems;
}

const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.git', '.nx', 'reports', 'coverage']);
const SKIPPED_PATHS = ['apps/bench/results'];
const TEXT_FILE = /\.(?:[cm]?[jt]s|md|json|java|xml|ya?ml|sh|txt|html|css)$|(^|\/)(?:run|Dockerfile)$/;

/** Text files of the repository, as paths from the root, without dependencies, build output and bench results. */
export function repositoryFiles(root: string, dir = root): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const rel = relative(root, path).split(sep).join('/');
    if (entry.isDirectory()) {
      if (SKIPPED_DIRS.has(entry.name) || SKIPPED_PATHS.includes(rel)) continue;
      out.push(...repositoryFiles(root, path));
    } else if (entry.isFile() && TEXT_FILE.test(rel) && rel !== 'package-lock.json') {
      out.push(rel);
    }
  }
  return out.sort();
}

/** The Markdown files whose links are checked: the README, CONTRIBUTING, the guides, every package's pages, the examples'. */
export function checkedMarkdown(root: string): string[] {
  const files = ['README.md', 'CONTRIBUTING.md', 'core/README.md', 'apps/examples/README.md'];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(resolve(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (rel.endsWith('.md')) files.push(rel);
    }
  };
  walk('docs');
  for (const plugin of readdirSync(resolve(root, 'plugins'))) {
    for (const page of ['README.md', 'HARNESS.md'])
      if (existsSync(resolve(root, 'plugins', plugin, page))) files.push(`plugins/${plugin}/${page}`);
  }
  return files.filter((file) => existsSync(resolve(root, file)));
}

/** File access relative to the repository root. */
export function repository(root: string): { read: ReadFile; exists: (path: string) => boolean } {
  return {
    read: (path) => (existsSync(resolve(root, path)) ? readFileSync(resolve(root, path), 'utf8') : undefined),
    exists: (path) => existsSync(resolve(root, path)) && statSync(resolve(root, path)).isFile(),
  };
}
