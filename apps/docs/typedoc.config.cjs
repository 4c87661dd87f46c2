// @ts-check
'use strict';
/**
 * The reference site: every publishable package (the same list the API reports use) with each entry point its
 * `exports` declares, the guides under docs/, and the README as the front page. Output: apps/docs/dist.
 */
const { join } = require('node:path');
const { publishablePackages, workspaceRoot } = require('./tools/workspace');

/** @type {Partial<import('typedoc').TypeDocOptions>} */
module.exports = {
  name: 'mqkit',
  // One TypeDoc conversion per package: it reads the package's exports for the entry points and its README for
  // the package page.
  entryPointStrategy: 'packages',
  entryPoints: publishablePackages().map((pkg) => pkg.dir),
  // The build tsconfig: no specs, and stripInternal, which TypeDoc follows (excludeInternal) as the .d.ts does.
  packageOptions: {
    tsconfig: 'tsconfig.build.json',
    // Source links name the repository of the packages' `repository` field, not the clone's remote: a fresh clone
    // has none (or a local path), and TypeDoc warns that its links would be broken.
    sourceLinkTemplate: 'https://github.com/mqkit/mqkit/blob/main/{path}#L{line}',
  },
  readme: join(workspaceRoot, 'README.md'),
  // Every guide, including ones added later.
  projectDocuments: [join(workspaceRoot, 'docs', '**', '*.md')],
  plugin: [join(__dirname, 'tools', 'typedoc-main-entry.mjs')],
  // linkify off: a bare `operating.md` or `x.io` in prose stays text; linkify made it an http:// link out of the site.
  markdownItOptions: { html: true, linkify: false },
  out: join(__dirname, 'dist'),
  treatWarningsAsErrors: true,
  validation: {
    notExported: true,
    invalidLink: true,
    rewrittenLink: true,
    unusedMergeModuleWith: true,
    notDocumented: false,
  },
};
