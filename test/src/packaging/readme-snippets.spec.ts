import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { moduleSpecifiers, packageOfSpecifier } from './module-specifiers';
import {
  INSTALL_MARKER,
  QUICKSTART_MARKER,
  TSCONFIG_MARKER,
  ReadmeSnippetError,
  markedBlock,
  parseInstallLine,
  readmeInstallLine,
  readmeQuickstart,
  readmeTsconfig,
} from './readme-snippets';
import { WORKSPACE_ROOT, publishablePackages } from './workspace-packages';

const readme = readFileSync(join(WORKSPACE_ROOT, 'README.md'), 'utf8');

// The install apps run what the README shows; these say what the README must hold for that, in its terms.
describe('README.md snippets the install apps run', () => {
  it(`marks its install line: ${INSTALL_MARKER}, then a \`\`\`sh block with one npm install line`, () => {
    const block = markedBlock(readme, INSTALL_MARKER, 'sh');
    expect(block, `no ${INSTALL_MARKER} line in README.md`).toBeDefined();
    expect(parseInstallLine(block!).length).toBeGreaterThan(0);
  });

  it(`marks its quickstart: ${QUICKSTART_MARKER}, then one \`\`\`ts block`, () => {
    const block = markedBlock(readme, QUICKSTART_MARKER, 'ts');
    expect(block, `no ${QUICKSTART_MARKER} line in README.md`).toBeDefined();
    expect(block).toMatch(/from '@mqkit\/core'/);
  });

  it(`marks the tsconfig the quickstart compiles with: ${TSCONFIG_MARKER}, then a \`\`\`json block`, () => {
    const { compilerOptions } = readmeTsconfig().value;
    // What decorators and constructor injection need, and what TypeScript 6+ no longer infers.
    expect(compilerOptions).toMatchObject({ experimentalDecorators: true, emitDecoratorMetadata: true });
    expect(compilerOptions.types).toContain('node');
    expect(compilerOptions.rootDir).toBeDefined();
  });

  it('installs every package the quickstart imports, and only publishable @mqkit packages', () => {
    const install = readmeInstallLine().value;
    const imported = moduleSpecifiers(readmeQuickstart().value).flatMap((s) => packageOfSpecifier(s) ?? []);
    expect(
      [...new Set(imported)].filter((name) => !install.includes(name)),
      'imported but not installed',
    ).toEqual([]);
    const publishable = new Set(publishablePackages().map((p) => p.name));
    expect(
      install.filter((n) => n.startsWith('@mqkit/') && !publishable.has(n)),
      'not publishable',
    ).toEqual([]);
  });
});

describe('markedBlock and parseInstallLine', () => {
  const doc = ['# x', INSTALL_MARKER, '', '```sh', 'npm install @mqkit/core tsyringe', '```', 'after'].join('\n');

  it('read the block right after the marker', () => {
    expect(parseInstallLine(markedBlock(doc, INSTALL_MARKER, 'sh')!)).toEqual(['@mqkit/core', 'tsyringe']);
    expect(markedBlock('# no marker', INSTALL_MARKER, 'sh')).toBeUndefined();
  });

  it('refuse a marker without its block, and an install line with flags or versions', () => {
    expect(() => markedBlock(`${INSTALL_MARKER}\ntext\n`, INSTALL_MARKER, 'sh')).toThrow(ReadmeSnippetError);
    expect(() => parseInstallLine('npm install --save-dev @mqkit/core')).toThrow(ReadmeSnippetError);
    expect(() => parseInstallLine('npm install tsyringe@4')).toThrow(ReadmeSnippetError);
    expect(() => parseInstallLine('npm install a\nnpm install b')).toThrow(ReadmeSnippetError);
  });
});
