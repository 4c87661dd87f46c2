import { describe, expect, it } from 'vitest';
import { blankComments, moduleSpecifiers, packageOfSpecifier, sourceMapUrl } from './module-specifiers';
import { analyseReachability } from './package-reachability';
import type { PackageManifest } from './workspace-packages';

// The analysis the tarball specs rely on, on a made-up package: it must flag what is unreachable and must not
// flag what an entry point reaches in any of the ways tsc's output and a bin script reach files.
const manifest: PackageManifest = {
  name: '@scope/pkg',
  version: '1.0.0',
  main: 'dist/index.js',
  types: 'dist/index.d.ts',
  bin: { tool: 'bin/tool.js' },
  exports: {
    '.': { types: './dist/index.d.ts', default: './dist/index.js' },
    './features/*': { types: './dist/features/*.d.ts', default: './dist/features/*.js' },
    './package.json': './package.json',
  },
};

const files: Record<string, string> = {
  'package.json': '{}',
  'README.md': '# pkg',
  LICENSE: 'Apache-2.0',
  'CHANGELOG.md': '# changes',
  'bin/tool.js': "#!/usr/bin/env node\nrequire('../dist/cli/main.js');\n",
  'dist/index.js':
    '"use strict";\n/** e.g. require("./not-a-dependency") in a comment */\n' +
    'const a = require("./a");\nconst re = /["\']/g;\nexports.x = () => import("./lazy.js");\n' +
    '//# sourceMappingURL=index.js.map\n',
  'dist/index.js.map': JSON.stringify({ sources: ['../src/index.ts'] }),
  'dist/index.d.ts':
    "export * from './a.js';\nexport type { T } from './types-only.js';\n//# sourceMappingURL=index.d.ts.map\n",
  'dist/index.d.ts.map': JSON.stringify({ sources: ['../src/index.ts'] }),
  'src/index.ts': 'export {}',
  'dist/a.js':
    '"use strict";\nconst rx = require("rxjs/operators");\nconst fs = require("node:fs");\nrequire("path");\n' +
    'const loop = require("./loop");\nconst s = host.require("sender");\n',
  'dist/a.d.ts': 'export declare const a: 1;\n',
  // An internal module: its .js is reached from a.js, its .d.ts from nothing but its .js. That .d.ts imports a
  // type-only module (an empty .js): core's pull-loop and consume-service.
  'dist/loop.js': '"use strict";\n',
  'dist/loop.d.ts': "import type { Service } from './service';\nimport type { Observable } from 'rxjs';\n",
  'dist/service.js': '"use strict";\n',
  'dist/service.d.ts': 'export interface Service {}\n',
  'dist/lazy.js': '"use strict";\n',
  'dist/lazy.d.ts': 'export {};\n',
  'dist/types-only.js': '"use strict";\n',
  'dist/types-only.d.ts': 'export type T = 1;\n',
  'dist/features/one.js': '"use strict";\n//# sourceMappingURL=one.js.map\n',
  'dist/features/one.js.map': JSON.stringify({ sources: ['../../src/features/one.ts'], sourcesContent: ['x'] }),
  'dist/features/one.d.ts': 'export {};\n',
  'dist/cli/main.js': "require('./args');\n",
  'dist/cli/args.js': '',
  'dist/fuzz/main.js': "require('./runner');\n",
  'dist/fuzz/runner.js': '',
  'dist/fuzz/main.d.ts': 'export {};\n',
};

const report = analyseReachability(manifest, Object.keys(files), (path) => {
  const text = files[path];
  if (text === undefined) throw new Error(`read of a file not in the package: ${path}`);
  return text;
});

describe('analyseReachability', () => {
  it('flags exactly the files no entry point reaches', () => {
    expect(report.unreachable).toEqual(['dist/fuzz/main.d.ts', 'dist/fuzz/main.js', 'dist/fuzz/runner.js']);
  });

  it('follows require, import(), export-from, bins, subpath patterns, both halves of a module and maps', () => {
    expect(report.reachable).toEqual(
      expect.arrayContaining([
        'bin/tool.js',
        'dist/cli/main.js',
        'dist/cli/args.js',
        'dist/a.js',
        'dist/a.d.ts',
        'dist/loop.d.ts',
        'dist/service.d.ts',
        'dist/service.js',
        'dist/lazy.js',
        'dist/types-only.js',
        'dist/features/one.js',
        'dist/features/one.js.map',
        'dist/index.d.ts.map',
        'src/index.ts',
      ]),
    );
    expect(report.missing).toEqual([]);
  });

  it('records the packages reached files import by bare specifier, built-ins and methods named require left out', () => {
    expect(Object.fromEntries(report.importedPackages)).toEqual({ rxjs: 'dist/a.js' });
  });

  it('reports the type-only module a paired .d.ts imports as missing when it does not ship', () => {
    const without = Object.keys(files).filter((f) => !f.startsWith('dist/service.'));
    const partial = analyseReachability(manifest, without, (path) => files[path]!);
    expect(partial.missing).toEqual(['dist/loop.d.ts imports ./service']);
  });

  it('reports a source map comment whose map does not ship', () => {
    const partial = analyseReachability(
      manifest,
      Object.keys(files).filter((f) => f !== 'dist/features/one.js.map'),
      (path) => files[path]!,
    );
    expect(partial.missing).toEqual(['dist/features/one.js names the source map one.js.map']);
  });

  it('reports map sources that are neither shipped nor inlined, and entry points that are missing', () => {
    const partial = analyseReachability(
      { ...manifest, main: 'dist/gone.js', bin: undefined },
      Object.keys(files).filter((f) => f !== 'src/index.ts'),
      (path) => files[path]!,
    );
    expect(partial.unresolvedMapSources).toEqual([
      'dist/index.d.ts.map -> src/index.ts',
      'dist/index.js.map -> src/index.ts',
    ]);
    expect(partial.missing).toEqual(['entry point dist/gone.js']);
  });
});

describe('moduleSpecifiers', () => {
  it('reads specifiers outside comments, strings with // and regular expressions with quotes', () => {
    const code = [
      '/* require("./in-block-comment") */',
      'const url = "http://example.invalid/x"; // require("./in-line-comment")',
      'const q = /[\'"]/;',
      "const b = require('./b');",
      'import c from "./c";',
      "export { d } from './d';",
      "import './side-effect';",
      "const lazy = () => import('./lazy');",
      "type T = import('./types').T;",
      '/// <reference path="./globals.d.ts" />',
    ].join('\n');
    expect(moduleSpecifiers(code).sort()).toEqual(
      ['./b', './c', './d', './globals.d.ts', './lazy', './side-effect', './types'].sort(),
    );
  });

  it('leaves out methods named require or import, which load no module', () => {
    expect(moduleSpecifiers("host.require('sender'); x.import('y'); $require('z'); require('./real');")).toEqual([
      './real',
    ]);
  });

  it('keeps line breaks when blanking comments, and finds the source map URL', () => {
    const code = 'a;\n/* one\ntwo */\nb;\n//# sourceMappingURL=x.js.map\n';
    expect(blankComments(code).split('\n')).toHaveLength(code.split('\n').length);
    expect(sourceMapUrl(code)).toBe('x.js.map');
    expect(sourceMapUrl('//# sourceMappingURL=data:application/json;base64,e30=\n')).toBeUndefined();
  });
});

describe('packageOfSpecifier', () => {
  it('names the package of a bare specifier, and nothing for paths and Node built-ins', () => {
    expect(packageOfSpecifier('@mqkit/core/testing')).toBe('@mqkit/core');
    expect(packageOfSpecifier('rxjs/operators')).toBe('rxjs');
    expect(packageOfSpecifier('tsyringe')).toBe('tsyringe');
    for (const none of ['./a', '../b', '/abs', 'node:fs', 'fs', 'fs/promises', 'path'])
      expect(packageOfSpecifier(none), none).toBeUndefined();
  });
});
