import { describe, expect, it } from 'vitest';
import { blankComments, moduleSpecifiers, sourceMapUrl } from './module-specifiers';
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
  'dist/a.js': '"use strict";\n',
  'dist/a.d.ts': 'export declare const a: 1;\n',
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

  it('keeps line breaks when blanking comments, and finds the source map URL', () => {
    const code = 'a;\n/* one\ntwo */\nb;\n//# sourceMappingURL=x.js.map\n';
    expect(blankComments(code).split('\n')).toHaveLength(code.split('\n').length);
    expect(sourceMapUrl(code)).toBe('x.js.map');
    expect(sourceMapUrl('//# sourceMappingURL=data:application/json;base64,e30=\n')).toBeUndefined();
  });
});
