// @ts-check
'use strict';
/**
 * API Extractor analyses one entry point at a time, so a `./testing` signature that names a type of the same
 * package's main entry (`describeOffsetStoreContract(…): OffsetStore`) is a "forgotten export" to it, although a
 * user imports that type from `@mqkit/core` as usual. This module knows what every entry of a package exports,
 * so that only a type no suitable entry exports is an error.
 */

/** @typedef {import('typescript').Program} Program */
/** @typedef {{ subpath: string, entryDts: string }} AnalysedEntry */

// The TypeScript that API Extractor bundles (6.x), which built the program; the root one (7.x) has no API.
const ts = /** @type {typeof import('typescript')} */ (
  require(require.resolve('typescript', { paths: [require.resolve('@microsoft/api-extractor')] }))
);

/**
 * The names of the declarations an entry exports, aliases followed to what they name: `export { Entry as
 * OffsetEntry }` exports the declaration `Entry`, which is the name a forgotten-export message uses.
 * @param {Program} program
 * @param {string} entryDts
 * @returns {Set<string>}
 */
function exportedDeclarationNames(program, entryDts) {
  const checker = program.getTypeChecker();
  const sourceFile = program.getSourceFile(entryDts);
  const moduleSymbol = sourceFile && checker.getSymbolAtLocation(sourceFile);
  if (moduleSymbol === undefined) throw new Error(`${entryDts} is not a module in the program`);
  const names = new Set();
  for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
    names.add(symbol.name);
    if (symbol.flags & ts.SymbolFlags.Alias) names.add(checker.getAliasedSymbol(symbol).name);
  }
  return names;
}

/** `./internal` is for mqkit's own packages; every other entry is for users. */
const isInternal = (/** @type {string} */ subpath) => subpath === './internal' || subpath.startsWith('./internal/');

/**
 * Decides, per entry, which forgotten exports are importable elsewhere in the package. A user-facing entry
 * may rely on another user-facing entry; `./internal` may rely on any entry. A user-facing signature that
 * names a type only `./internal` exports is an internal leaking out, and stays an error.
 * @param {Program} program
 * @param {AnalysedEntry[]} entries
 * @returns {(subpath: string, name: string) => boolean}
 */
function forgottenExportResolver(program, entries) {
  const exported = new Map(entries.map((e) => [e.subpath, exportedDeclarationNames(program, e.entryDts)]));
  return (subpath, name) =>
    entries.some(
      (other) =>
        other.subpath !== subpath &&
        (isInternal(subpath) || !isInternal(other.subpath)) &&
        exported.get(other.subpath)?.has(name) === true,
    );
}

/**
 * The symbol name in an ae-forgotten-export message ('The symbol "X" needs to be exported by …').
 * @param {string} text
 * @returns {string | undefined}
 */
function forgottenSymbolName(text) {
  return /^The symbol "([^"]+)"/.exec(text)?.[1];
}

module.exports = { exportedDeclarationNames, forgottenExportResolver, forgottenSymbolName, isInternal };
