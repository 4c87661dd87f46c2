import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeRun, killRunningCommands } from '../packaging/run-command';
import { killLeftovers } from '../packaging/run-until-output';
import { readmeTsconfig } from '../packaging/readme-snippets';
import { type CompiledBlocks, compileBlocks, runBlock } from './compile-blocks';
import { type DocBlock, describeDiagnostic, docBlocks, parseTscOutput } from './doc-blocks';
import { checkedMarkdown, repository } from './docs-rules';

// Every TypeScript block of the README, the guides and the package READMEs compiles against the published types,
// and the blocks marked as programs run on the embedded broker (doc-blocks.ts has the markers).

const root = resolve(__dirname, '..', '..', '..');
const repo = repository(root);
const pages = checkedMarkdown(root);
const read = pages.map((page) => docBlocks(page, repo.read(page) ?? ''));
const blocks = read.flatMap((r) => r.blocks);
const compiled = blocks.filter((block) => block.noCompile === undefined);
const expectedToCompile = compiled.filter((block) => block.fails === undefined);
const knownFailures = compiled.filter((block) => block.fails !== undefined);
const runs = compiled.filter((block) => block.run !== undefined);

let dir: string;
let result: CompiledBlocks;

beforeAll(async () => {
  await mkdir(join(root, 'test', '.scratch'), { recursive: true });
  dir = await mkdtemp(join(root, 'test', '.scratch', 'doc-blocks-'));
  result = await compileBlocks(dir, compiled, readmeTsconfig().value);
}, 240_000);

afterAll(async () => {
  killLeftovers();
  killRunningCommands();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function errorsOf(block: DocBlock): string[] {
  return (result.byBlock.get(block.stem) ?? []).map((d) => describeDiagnostic(block, d));
}

describe('the TypeScript blocks of the docs', () => {
  it('are all read: markers known and well-formed, every page covered', () => {
    expect(read.flatMap((r) => r.problems)).toEqual([]);
    expect(blocks.length).toBeGreaterThan(25);
    expect(blocks.some((block) => block.page === 'README.md' && block.run)).toBe(true);
    expect(new Set(blocks.map((block) => block.stem)).size).toBe(blocks.length);
  });

  it('compile with no error outside a block (the fragment context, the tsconfig)', () => {
    expect(result.elsewhere.map((d) => `${d.file}:${d.line} ${d.code} ${d.message}`)).toEqual([]);
  });

  it.each(expectedToCompile.map((block) => [block.label, block] as const))('%s compiles', (_label, block) => {
    expect(errorsOf(block)).toEqual([]);
  });

  it.each(knownFailures.map((block) => [block.label, block] as const))(
    '%s still fails as its marker says (remove the marker once it compiles)',
    (_label, block) => {
      const codes = (result.byBlock.get(block.stem) ?? []).map((d) => d.code);
      expect(codes.length, `${block.label} compiles now: remove its <!-- fails --> marker`).toBeGreaterThan(0);
      expect([...new Set(codes)], errorsOf(block).join('\n')).toEqual([block.fails?.code]);
    },
  );

  it('leaves out only blocks that say why', () => {
    const skipped = blocks.filter((block) => block.noCompile !== undefined);
    for (const block of skipped) expect(block.noCompile, block.label).toMatch(/\w{3,}/);
    expect(skipped.length, 'no-compile is for the odd block only').toBeLessThanOrEqual(3);
  });

  it.each(runs.map((block) => [block.label, block] as const))(
    '%s runs on the embedded broker and exits 0',
    async (_label, block) => {
      expect(errorsOf(block)).toEqual([]);
      const { result: ran, missing } = await runBlock(dir, block, block.run!);
      expect(missing, describeRun(ran)).toEqual([]);
      expect(ran.code, describeRun(ran)).toBe(0);
    },
    120_000,
  );
});

describe('the block reader', () => {
  const page = (...lines: string[]) => docBlocks('p.md', lines.join('\n'));

  it('reads each ts block with the markers right above it, and the line of its fence', () => {
    const { blocks: read, problems } = page(
      '# P',
      '```ts',
      'const a = 1;',
      '```',
      '<!-- fragment -->',
      '```typescript',
      'use(a);',
      '```',
      '```js',
      'not ts',
      '```',
      '<!-- fragment -->',
      '',
      '```ts',
      'far(from, its, marker);',
      '```',
    );
    expect(problems).toEqual([]);
    expect(read.map((b) => [b.label, b.fragment, b.code])).toEqual([
      ['p.md:2', false, 'const a = 1;\n'],
      ['p.md:6', true, 'use(a);\n'],
      ['p.md:14', false, 'far(from, its, marker);\n'],
    ]);
  });

  it('reads run, fails and no-compile, and stacks them with the quickstart marker', () => {
    const { blocks: read, problems } = page(
      '<!-- run -->',
      '```ts',
      '```',
      '<!-- run: prints "order A-1: 30", "say \\"hi\\"", then SIGTERM -->',
      '<!-- quickstart -->',
      '```ts',
      '```',
      '<!-- fragment -->',
      '<!-- fails TS2345: widens until the signature infers it -->',
      '```ts',
      '```',
      '<!-- no-compile: Java, for comparison -->',
      '```ts',
      '```',
    );
    expect(problems).toEqual([]);
    expect(read.map((b) => [b.run, b.fails, b.noCompile])).toEqual([
      [{ prints: [] }, undefined, undefined],
      [{ prints: ['order A-1: 30', 'say "hi"'], signal: 'SIGTERM' }, undefined, undefined],
      [undefined, { code: 'TS2345', reason: 'widens until the signature infers it' }, undefined],
      [undefined, undefined, 'Java, for comparison'],
    ]);
  });

  it('refuses unknown and malformed markers, and markers that contradict', () => {
    const { blocks: read, problems } = page(
      '<!-- fragmnet -->',
      '```ts',
      '```',
      '<!-- run: prints order -->',
      '```ts',
      '```',
      '<!-- no-compile -->',
      '```ts',
      '```',
      '<!-- run -->',
      '<!-- fragment -->',
      '```ts',
      '```',
      '<!-- fails TS2345: x -->',
      '<!-- no-compile: y -->',
      '```ts',
      '```',
      '```ts',
      'open',
    );
    expect(read).toEqual([]);
    expect(problems).toEqual([
      'p.md:2: unknown marker <!-- fragmnet -->',
      'p.md:5: run: wants prints "line", ... [then SIGTERM], not "prints order"',
      'p.md:8: no-compile gives no reason',
      'p.md:12: a run block is complete and compiles: no fragment or fails',
      'p.md:16: no-compile stands alone',
      'p.md:18: the block is never closed',
    ]);
  });

  it("reads tsc's errors and names them by the page's line", () => {
    const output = [
      "src/p-md-6.mts(3,7): error TS2304: Cannot find name 'x'.",
      "src/p-md-6.mts(4,1): error TS2345: Argument of type '() => Promise<string>' is not assignable.",
      "  Type 'Promise<string>' is not assignable to type 'TransactionState'.",
      'error TS5083: Cannot read file tsconfig.json.',
      'Found 3 errors.',
    ].join('\n');
    const diagnostics = parseTscOutput(output);
    expect(diagnostics.map((d) => [d.file, d.line, d.code])).toEqual([
      ['src/p-md-6.mts', 3, 'TS2304'],
      ['src/p-md-6.mts', 4, 'TS2345'],
      ['', 0, 'TS5083'],
    ]);
    expect(diagnostics[1]?.message).toMatch(/\n {2}Type 'Promise<string>'/);
    const [block] = page('', '', '', '', '', '```ts', 'a', 'b', 'c', 'd', '```').blocks;
    expect(describeDiagnostic(block!, diagnostics[0]!)).toBe("p.md:9:7 TS2304 Cannot find name 'x'.");
  });
});
