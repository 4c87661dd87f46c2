import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { internalImports, runReports } from './api-reports.js';
import { forgottenSymbolName } from './entry-exports.js';
import { reportName, typedEntries, type WorkspacePackage } from './workspace.js';

describe('typedEntries', () => {
  it('lists each exports subpath with types, following nested conditions, and skips ./package.json', () => {
    const entries = typedEntries({
      name: '@x/a',
      exports: {
        '.': { types: './dist/index.d.ts', default: './dist/index.js' },
        './testing': { require: { types: './dist/testing.d.cts', default: './dist/testing.cjs' } },
        './package.json': './package.json',
      },
    });
    expect(entries).toEqual([
      { subpath: '.', types: './dist/index.d.ts' },
      { subpath: './testing', types: './dist/testing.d.cts' },
    ]);
  });

  it('reads `types` when there is no exports map, and refuses subpath patterns', () => {
    expect(typedEntries({ name: '@x/a', types: 'dist/index.d.ts' })).toEqual([
      { subpath: '.', types: 'dist/index.d.ts' },
    ]);
    expect(() => typedEntries({ name: '@x/a', exports: { './*': './dist/*.js' } })).toThrow(/pattern/);
  });
});

describe('reportName', () => {
  it('is the unscoped name, then the subpath', () => {
    expect(reportName('@mqkit/core', '.')).toBe('core');
    expect(reportName('@mqkit/core', './testing')).toBe('core-testing');
    expect(reportName('plain', './a/b')).toBe('plain-a-b');
  });
});

describe('internalImports', () => {
  it('finds imports from an internal entry point only', () => {
    const report = [
      "import type { A } from '@mqkit/core';",
      "import { B } from '@mqkit/core/internal';",
      "import { C } from 'internal-lib';",
    ].join('\n');
    expect(internalImports(report)).toEqual(["import { B } from '@mqkit/core/internal';"]);
  });
});

describe('forgottenSymbolName', () => {
  it('reads the symbol of an ae-forgotten-export message', () => {
    expect(forgottenSymbolName('The symbol "ProducerDeps" needs to be exported by the entry point index.d.ts')).toBe(
      'ProducerDeps',
    );
  });
});

// A package made of hand-written .d.ts files, inside the workspace so that @types/node resolves.
describe('runReports on a fixture package', () => {
  let dir: string;
  let pkg: WorkspacePackage;
  const write = (file: string, text: string) => writeFileSync(join(dir, file), text);
  const run = (update: boolean) => runReports([pkg], { update });
  const report = (name: string) => readFileSync(join(dir, 'api', name), 'utf8');

  beforeEach(() => {
    mkdirSync(join(__dirname, '..', '.scratch'), { recursive: true });
    dir = mkdtempSync(join(__dirname, '..', '.scratch', 'api-'));
    mkdirSync(join(dir, 'dist'));
    const manifest = {
      name: '@fixture/lib',
      version: '1.0.0',
      exports: {
        '.': { types: './dist/index.d.ts' },
        './testing': { types: './dist/testing.d.ts' },
        './internal': { types: './dist/internal.d.ts' },
      },
    };
    write('package.json', JSON.stringify(manifest));
    pkg = { dir, name: manifest.name, manifest };
    write(
      'dist/index.d.ts',
      'export interface Widget { readonly id: string }\nexport declare function make(id: string): Widget;\n',
    );
    // The testing entry names Widget, which the main entry exports: importable, so no error.
    write('dist/testing.d.ts', "import type { Widget } from './index';\nexport declare function fake(): Widget;\n");
    write('dist/internal.d.ts', 'export declare const SECRET = 1;\n');
    vi.spyOn(console, 'log').mockImplementation(() => {});
    vi.spyOn(console, 'error').mockImplementation(() => {});
  });

  afterEach(() => {
    vi.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  // Each run builds a TypeScript program (seconds), so one test walks through the whole cycle.
  it('--update writes a report per entry; the check passes, then fails on a changed API or a stale report', () => {
    const written = run(true);
    expect(written.failed).toEqual([]);
    expect(written.written).toHaveLength(3);
    expect(report('lib.api.md')).toContain('export function make(id: string): Widget;');
    expect(report('lib-testing.api.md')).toContain('export function fake(): Widget;');
    expect(existsSync(join(dir, 'api', 'lib-internal.api.md'))).toBe(true);
    expect(run(false)).toMatchObject({ failed: [], changed: [], checked: 3 });

    const before = report('lib.api.md');
    write(
      'dist/index.d.ts',
      'export interface Widget { readonly id: string }\nexport declare function make(id: number): Widget;\n',
    );
    write('api/lib-gone.api.md', 'old');
    const checked = run(false);
    expect(checked.changed).toEqual([
      expect.stringMatching(/lib\.api\.md$/),
      expect.stringMatching(/lib-gone\.api\.md$/),
    ]);
    expect(report('lib.api.md')).toBe(before);

    run(true);
    expect(report('lib.api.md')).toContain('export function make(id: number): Widget;');
    expect(existsSync(join(dir, 'api', 'lib-gone.api.md'))).toBe(false);
  });

  it('fails on a public signature naming a type no entry exports, or one only ./internal exports', () => {
    // In a .d.ts, `export {}` makes the other declarations unexported, as tsc emits it.
    write(
      'dist/index.d.ts',
      'interface Deps { readonly id: string }\nexport declare function make(deps: Deps): void;\nexport {};\n',
    );
    write('dist/internal.d.ts', 'export interface Secret { readonly id: string }\n');
    write(
      'dist/testing.d.ts',
      "import type { Secret } from './internal';\nexport declare function fake(s: Secret): void;\n",
    );
    const outcome = run(true);
    expect(outcome.failed).toEqual(['@fixture/lib "."', '@fixture/lib "./testing"']);
    expect(console.error).toHaveBeenCalledWith(expect.stringContaining('(ae-forgotten-export) The symbol "Deps"'));
    expect(console.error).toHaveBeenCalledWith(expect.stringContaining('(ae-forgotten-export) The symbol "Secret"'));
  });
});
