import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeRun, EXAMPLES, EXAMPLES_DIR, exampleHeader, runExample, runProblems } from './testing';

// Each example is run as a user runs it, `node dist/<name>.js` after the build, on the embedded broker: it must
// do its thing, print what it says it prints, and exit 0 by itself. test/src/rocketmq/examples-rocketmq.spec.ts
// runs the same programs, held to the same lines (./testing), on a real cluster as their headers say.

const ROOT = resolve(EXAMPLES_DIR, '..', '..');

describe('the examples, each run on the embedded broker', () => {
  it.each(EXAMPLES.map((example) => [example.name, example] as const))(
    '%s prints what it shows and exits 0 by itself',
    async (name, example) => {
      const run = await runExample(name, { timeoutMs: 60_000 });
      expect(runProblems(example, run), describeRun(run)).toEqual([]);
    },
    90_000,
  );
});

describe('the examples, as a user copies them', () => {
  // Every .ts file of src is a program, but the specs and the specs' own ./testing.
  const programs = readdirSync(join(EXAMPLES_DIR, 'src'))
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts') && file !== 'testing.ts')
    .map((file) => file.slice(0, -'.ts'.length))
    .sort();

  it('are all run above', () => {
    expect(programs).toEqual(EXAMPLES.map((example) => example.name).sort());
  });

  it.each(programs)('%s says what it shows and how to run it on each transport, and names its guide', (name) => {
    const header = exampleHeader(name);
    expect(header, 'a header comment first').not.toBe('');
    expect(header).toContain(`node dist/${name}.js`);
    expect(header).toMatch(new RegExp(`ROCKETMQ_NAMESRV=\\S+ node dist/${name}\\.js`));
    expect(header).toMatch(/mqadmin updateTopic .* -t \S+/);
    const guide = /Guide: (\S+\.md)/.exec(header)?.[1];
    expect(guide, 'a "Guide: <page>.md" line').toBeDefined();
    expect(existsSync(join(ROOT, guide!)), `${guide} is a page of the repository`).toBe(true);
  });

  it.each(programs)('%s imports packages by name, as an app does (no relative paths)', (name) => {
    const source = readFileSync(join(EXAMPLES_DIR, 'src', `${name}.ts`), 'utf8');
    const specifiers = [...source.matchAll(/^import (?:[^'"]+ from )?'([^']+)';$/gm)].map((m) => m[1]);
    expect(specifiers.length).toBeGreaterThan(0);
    expect(specifiers.filter((s) => s?.startsWith('.'))).toEqual([]);
    expect(specifiers).toContain('reflect-metadata');
  });
});
