import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  checkedMarkdown,
  guideProblems,
  linkProblems,
  outsideReferenceProblems,
  readmeProblems,
  repository,
  repositoryFiles,
} from './docs-rules';
import { anchors, githubSlug, links } from './markdown';

// Paths of the kind the guards refuse, built from parts so this spec is not itself such a reference.
const OUTSIDE_FILE = ['..', 'shared', 'reference', 'x.md'].join('/');
const CITED_FILE = `${'consumer'}-semantics.md`;

const root = resolve(__dirname, '..', '..', '..');
const repo = repository(root);
const readme = readFileSync(resolve(root, 'README.md'), 'utf8');
const THIS_DIR = 'test/src/docs/';

/** A README that keeps every rule, to break one rule at a time. */
const GOOD_README = [
  '# x',
  '',
  '<!-- install -->',
  '```sh',
  'npm install @mqkit/core @mqkit/transport-rocketmq reflect-metadata tsyringe rxjs',
  '```',
  '',
  '<!-- quickstart -->',
  '```ts',
  "import 'reflect-metadata';",
  'async function main(): Promise<void> {',
  '  await start();',
  '}',
  'main().catch(() => process.exit(1));',
  '```',
  '',
  '## Two commands on a fresh machine',
  '',
  '```sh',
  'npm ci && npm start      # the sample',
  'npm test                 # the whole suite',
  '```',
  '',
].join('\n');

describe('the README', () => {
  it('keeps its rules: under 250 lines, the install and quickstart blocks, the two fresh-machine commands', () => {
    expect(readmeProblems(readme)).toEqual([]);
  });

  it('keeps the quickstart of the smoke test: three orders, a stop on SIGTERM and SIGINT, the default start offset', () => {
    const quickstart = readme.slice(readme.indexOf('<!-- quickstart -->'));
    for (const needle of ["'A-1'", "'A-2'", "'A-3'", "'SIGTERM'", "'SIGINT'"]) expect(quickstart).toContain(needle);
    // Its consumer starts before the embedded broker creates 'orders' (at the first send): the default,
    // CONSUME_FROM_LAST_OFFSET, must read that topic from its start without help.
    const block = quickstart.slice(0, quickstart.indexOf('\n```\n', quickstart.indexOf('```ts')));
    expect(block).not.toContain('consumeFromWhere');
  });

  it('fails each rule on a README that breaks it', () => {
    expect(readmeProblems(GOOD_README)).toEqual([]);
    const long = `${GOOD_README}${'line\n'.repeat(250)}`;
    expect(readmeProblems(long)).toEqual([expect.stringMatching(/must stay under 250/)]);
    expect(readmeProblems(GOOD_README.replace('<!-- install -->\n', ''))).toEqual(['no line <!-- install -->']);
    expect(readmeProblems(GOOD_README.replace('<!-- install -->\n', '<!-- install -->\n\n'))).toEqual([
      '<!-- install --> is not directly followed by a code block',
    ]);
    expect(readmeProblems(GOOD_README.replace('rxjs\n', 'rxjs\nnpm install vitest\n'))).toEqual([
      'the install block has 2 lines, not one',
    ]);
    expect(readmeProblems(GOOD_README.replace('tsyringe', 'tsyringe@4.8.0'))).toEqual([
      'the install line names tsyringe@4.8.0: package names only, no versions or flags',
      'the install line does not name tsyringe',
    ]);
    expect(readmeProblems(GOOD_README.replace('```ts', '```js'))).toEqual([
      'the block after <!-- quickstart --> is ```js, not ```ts',
    ]);
    expect(readmeProblems(GOOD_README.replace('main().catch', 'await main();\nmain().catch'))).toEqual([
      'the quickstart has a top-level await on its line 5 (not CommonJS)',
    ]);
    expect(readmeProblems(GOOD_README.replace('npm ci && npm start', 'npm install && npm start'))).toEqual([
      'the first fresh-machine command is not `npm ci && npm start`',
    ]);
    expect(readmeProblems(GOOD_README.replace('npm test ', 'npx nx test '))).toEqual([
      'the second fresh-machine command is not `npm test`',
    ]);
  });
});

describe('links in the README, CONTRIBUTING, the guides and the package READMEs', () => {
  const pages = checkedMarkdown(root);

  it('covers every page', () => {
    for (const page of ['README.md', 'CONTRIBUTING.md', 'core/README.md', 'docs/architecture.md'])
      expect(pages).toContain(page);
    expect(pages.filter((page) => page.startsWith('plugins/') && page.endsWith('/README.md')).length).toBe(9);
  });

  it.each(pages)('%s: every relative link resolves, anchors included; no external links', (page) => {
    expect(linkProblems(page, repo.read(page) ?? '', repo.read, repo.exists)).toEqual([]);
  });

  it('fails on a missing file, a missing anchor, a link out of the repository and an external link', () => {
    const page = [
      '# Page',
      '[ok](README.md) [ok](#page) [ok](docs/architecture.md#ownership-rules)',
      '[missing](docs/nope.md) [bad anchor](docs/architecture.md#nope) [here](#nope)',
      `[outside](${OUTSIDE_FILE}) [web](https://example.com) [absolute](/README.md)`,
      '`[in code](nope.md)`',
    ].join('\n');
    const read = (path: string) => (path === 'x.md' ? page : repo.read(path));
    const exists = (path: string) => path === 'x.md' || repo.exists(path);
    expect(linkProblems('x.md', page, read, exists)).toEqual([
      'x.md:3: docs/nope.md is not a file of the repository (docs/nope.md)',
      'x.md:3: docs/architecture.md has no heading #nope',
      'x.md:3: x.md has no heading #nope',
      `x.md:4: ${OUTSIDE_FILE} leaves the repository`,
      'x.md:4: external link https://example.com',
      'x.md:4: /README.md is absolute; links are relative',
    ]);
  });
});

describe('the guides', () => {
  const guides = checkedMarkdown(root).filter((page) => page.startsWith('docs/'));

  it.each(guides)('%s starts with what it covers and a link back to the README', (guide) => {
    expect(guideProblems(guide, repo.read(guide) ?? '')).toEqual([]);
  });

  it('fails on a guide without its opening paragraph or its README link', () => {
    expect(guideProblems('g.md', 'No title.\n')).toEqual(['g.md does not start with a # title']);
    expect(guideProblems('g.md', '# G\n\n## Section\n')).toEqual(['g.md has no opening paragraph']);
    expect(guideProblems('g.md', '# G\n\nWhat it covers.\n\nBack to the [README](../README.md).\n')).toEqual([
      "g.md's opening paragraph does not link to ../README.md",
    ]);
    expect(guideProblems('g.md', '# G\n\nWhat it covers. Back to the [README](../README.md).\n')).toEqual([]);
  });
});

describe('references to design files outside the repository', () => {
  it('no source, doc or README mentions them', () => {
    const files = repositoryFiles(root).filter((file) => !file.startsWith(THIS_DIR));
    expect(files).toContain('core/src/spi/offset-store.ts');
    expect(files).toContain('plugins/transport-rocketmq/HARNESS.md');
    expect(files.some((file) => file.startsWith('apps/bench/results/'))).toBe(false);
    const problems = files.flatMap((file) => outsideReferenceProblems(file, repo.read(file) ?? ''));
    expect(problems).toEqual([]);
  });

  it('fails on a comment that cites one', () => {
    expect(outsideReferenceProblems('a.ts', `// ok\n * RocketMQ semantics (${CITED_FILE} §8)\n`)).toEqual([
      `a.ts:2: mentions ${CITED_FILE}`,
    ]);
    expect(outsideReferenceProblems('b.md', `See \`${OUTSIDE_FILE}\`.`)).toEqual([
      'b.md:1: mentions ../shared',
      'b.md:1: mentions shared/reference',
    ]);
    expect(outsideReferenceProblems('c.md', '[engine](docs/architecture.md)')).toEqual([]);
  });
});

describe('the Markdown reader', () => {
  it("makes GitHub's anchors", () => {
    expect(githubSlug('Exclusive handoff')).toBe('exclusive-handoff');
    expect(githubSlug('Admin reads: progress, stats, connections, message lookups')).toBe(
      'admin-reads-progress-stats-connections-message-lookups',
    );
    expect(githubSlug('Metrics (Prometheus)')).toBe('metrics-prometheus');
    expect(githubSlug('The `mqkit` CLI')).toBe('the-mqkit-cli');
    expect(githubSlug('Found on a real 5.3.3 broker')).toBe('found-on-a-real-533-broker');
    expect(githubSlug('UNIQ_KEY')).toBe('uniq_key');
    expect(githubSlug('`MqkitServer`: `@EventPattern` and `@MessagePattern` handlers on RocketMQ')).toBe(
      'mqkitserver-eventpattern-and-messagepattern-handlers-on-rocketmq',
    );
    expect([...anchors('# A\n## Options\n```\n# not a heading\n```\n## Options\n')]).toEqual([
      'a',
      'options',
      'options-1',
    ]);
  });

  it('reads links outside code only', () => {
    const text = '[a](x.md) `[b](y.md)`\n```\n[c](z.md)\n```\n![d](i.svg "t")\n[e]: ref.md\n<img src="p.png">';
    expect(links(text).map((link) => `${link.line}:${link.target}`)).toEqual([
      '1:x.md',
      '5:i.svg',
      '6:ref.md',
      '7:p.png',
    ]);
  });
});
