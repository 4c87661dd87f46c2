// @ts-check
'use strict';
/**
 * The one API Extractor configuration every entry point shares. Only the paths differ per entry, so they are
 * filled in here instead of in a JSON file per package.
 */

const { ExtractorLogLevel } = require('@microsoft/api-extractor');

/** @typedef {import('@microsoft/api-extractor').IConfigFile} IConfigFile */

const error = ExtractorLogLevel.Error;
const none = ExtractorLogLevel.None;

/**
 * How each message is treated. Every message that is reported at all is an error: a warning would pass a local
 * run and fail CI, and nobody reads warnings that do not fail.
 * @type {NonNullable<IConfigFile['messages']>}
 */
const messages = {
  // The .d.ts files are tsc's own output; if TypeScript 6 cannot read them, consumers on TypeScript 6 cannot
  // either.
  compilerMessageReporting: { default: { logLevel: error } },
  extractorMessageReporting: {
    default: { logLevel: error },
    // A public signature that names a type the entry point does not export: users can see the type but not
    // import it, and the reference site cannot link it.
    'ae-forgotten-export': { logLevel: error, addToApiReportFile: false },
    // mqkit has no alpha/beta/public release levels: everything an entry point exports is its API, and
    // internals stay out of it by living in `./internal` or under `@internal` (stripped from the .d.ts).
    'ae-missing-release-tag': { logLevel: none },
    // The underscore prefix is Microsoft's naming convention for @internal, not this project's; stripInternal
    // removes those declarations from the .d.ts, so what is left never reaches the report.
    'ae-internal-missing-underscore': { logLevel: none },
    // Links are checked once, by TypeDoc (validation.invalidLink), which resolves them the way the published
    // site shows them; API Extractor's resolver only knows the one entry point it is analysing, so a link to
    // another entry point or package would be a false error here.
    'ae-unresolved-link': { logLevel: none },
    // TSDoc on public exports is a house rule, enforced by review and by TypeDoc; per-member "undocumented"
    // lines would bury the signatures in the report.
    'ae-undocumented': { logLevel: none },
  },
  // TypeDoc parses the same comments for the site and fails on what it cannot read; API Extractor's TSDoc
  // parser is stricter about syntax the site renders fine (an `@` or `{` in prose, `@default`-style tags), so
  // it would demand edits that change nothing a reader sees.
  tsdocMessageReporting: { default: { logLevel: none } },
};

/**
 * The configuration for one entry point.
 * @param {{ packageDir: string, entryDts: string, reportName: string, reportFolder: string, tempFolder: string }} entry
 * @returns {IConfigFile}
 */
function extractorConfig({ packageDir, entryDts, reportName, reportFolder, tempFolder }) {
  return {
    projectFolder: packageDir,
    mainEntryPointFilePath: entryDts,
    bundledPackages: [],
    newlineKind: 'lf',
    // Enum members in source order, as users read them in the declaration (the enum type is not exported).
    enumMemberOrder: /** @type {IConfigFile['enumMemberOrder']} */ ('preserve'),
    compiler: {
      // The compiler reads the emitted .d.ts only (never the sources, which TypeScript 7 compiles), with the
      // shared tsconfig's module settings so `@mqkit/core/internal` and `node:` imports resolve as for a user.
      overrideTsconfig: {
        compilerOptions: {
          target: 'ES2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          lib: ['ES2022'],
          types: ['node'],
          strict: true,
        },
        files: [entryDts],
      },
      // The published types are read with skipLibCheck off, as a strict consumer would.
      skipLibCheck: false,
    },
    apiReport: {
      enabled: true,
      reportFileName: reportName,
      reportFolder,
      reportTempFolder: tempFolder,
      includeForgottenExports: false,
    },
    docModel: { enabled: false },
    dtsRollup: { enabled: false },
    tsdocMetadata: { enabled: false },
    messages,
  };
}

module.exports = { extractorConfig, messages };
