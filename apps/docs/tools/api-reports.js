// @ts-check
'use strict';
/**
 * API reports: one `<package>/api/<name>.api.md` per typed entry point of every publishable package, made by
 * API Extractor from the built .d.ts (run after `nx run-many -t build`).
 *
 *   node tools/api-reports.js            check: fail when a report differs from the committed one (CI)
 *   node tools/api-reports.js --update   rewrite the reports (and delete those no entry point makes any more)
 */
const { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, relative, resolve } = require('node:path');
const { CompilerState, Extractor, ExtractorConfig, ExtractorLogLevel } = require('@microsoft/api-extractor');
const { forgottenExportResolver, forgottenSymbolName, isInternal } = require('./entry-exports');
const { extractorConfig } = require('./extractor-config');
const { publishablePackages, readJson, reportName, typedEntries, workspaceRoot } = require('./workspace');

const UPDATE_COMMAND = 'npx nx run @mqkit/docs:api-update';
const REPORT_SUFFIX = '.api.md';

/** @typedef {import('@microsoft/api-extractor').ExtractorMessage} ExtractorMessage */
/** @typedef {{ failed: string[], changed: string[], written: string[], checked: number }} Outcome */

/** @param {string} path */
const show = (path) => relative(workspaceRoot, path) || '.';

/**
 * Prints API Extractor's errors and warnings with their location, and nothing of its progress chatter. The
 * "report changed" notices are replaced by this tool's summary, which names the command that updates them.
 * @param {ExtractorMessage} message
 * @param {string} packageDir
 * @param {(name: string) => boolean} importableElsewhere a forgotten export another entry of the package exports
 */
function handleMessage(message, packageDir, importableElsewhere) {
  message.handled = true;
  if (message.messageId === 'ae-forgotten-export') {
    const name = forgottenSymbolName(message.text);
    if (name !== undefined && importableElsewhere(name)) {
      message.logLevel = ExtractorLogLevel.None;
      return;
    }
  }
  switch (message.messageId) {
    case 'console-api-report-diff':
      console.log(message.text);
      return;
    case 'console-api-report-not-copied':
    case 'console-api-report-copied':
    case 'console-api-report-created':
      return;
  }
  if (message.logLevel === ExtractorLogLevel.Error || message.logLevel === ExtractorLogLevel.Warning) {
    const where = message.sourceFilePath ? message.formatMessageWithLocation(workspaceRoot) : message.text;
    console.error(`${message.logLevel}: ${where}${message.sourceFilePath ? '' : ` (${show(packageDir)})`}`);
  }
}

/**
 * Runs API Extractor over every typed entry point of one package. The entries share one TypeScript program.
 * @param {import('./workspace').WorkspacePackage} pkg
 * @param {{ update: boolean, tempRoot: string }} options
 * @param {Outcome} outcome
 */
function reportPackage(pkg, { update, tempRoot }, outcome) {
  const entries = typedEntries(pkg.manifest);
  const reportFolder = join(pkg.dir, 'api');
  const tempFolder = join(tempRoot, reportName(pkg.name, '.'));
  const expected = new Set(entries.map((entry) => reportName(pkg.name, entry.subpath) + REPORT_SUFFIX));
  if (update) mkdirSync(reportFolder, { recursive: true });

  const configs = entries.map((entry) => {
    const entryDts = resolve(pkg.dir, entry.types);
    if (!existsSync(entryDts)) {
      throw new Error(
        `${pkg.name} "${entry.subpath}": ${show(entryDts)} does not exist; run \`npx nx run-many -t build\``,
      );
    }
    const name = reportName(pkg.name, entry.subpath);
    const configObject = extractorConfig({ packageDir: pkg.dir, entryDts, reportName: name, reportFolder, tempFolder });
    const config = ExtractorConfig.prepare({
      configObject,
      configObjectFullPath: undefined,
      packageJsonFullPath: join(pkg.dir, 'package.json'),
      packageJson: /** @type {any} */ (pkg.manifest),
    });
    return { entry, name, config };
  });
  const [first] = configs;
  if (first === undefined) return;
  const compilerState = CompilerState.create(first.config, {
    additionalEntryPoints: configs.slice(1).map(({ config }) => config.mainEntryPointFilePath),
  });
  const importable = forgottenExportResolver(
    /** @type {import('typescript').Program} */ (compilerState.program),
    configs.map(({ entry, config }) => ({ subpath: entry.subpath, entryDts: config.mainEntryPointFilePath })),
  );

  for (const { entry, name, config } of configs) {
    const reportPath = join(reportFolder, name + REPORT_SUFFIX);
    const result = Extractor.invoke(config, {
      localBuild: update,
      compilerState,
      printApiReportDiff: !update,
      messageCallback: (message) => handleMessage(message, pkg.dir, (symbol) => importable(entry.subpath, symbol)),
    });
    outcome.checked += 1;
    const leaks = isInternal(entry.subpath)
      ? []
      : internalImports(readFileSync(join(tempFolder, name + REPORT_SUFFIX), 'utf8'));
    for (const leak of leaks) {
      console.error(`error: ${pkg.name} "${entry.subpath}" names a type from an internal entry point: ${leak}`);
    }
    // A changed report is a failure only in check mode; errors fail both modes.
    if (result.errorCount > 0 || leaks.length > 0) outcome.failed.push(`${pkg.name} "${entry.subpath}"`);
    if (result.apiReportChanged) (update ? outcome.written : outcome.changed).push(show(reportPath));
  }

  // A report that no entry point makes any more (the entry was removed or renamed) would go stale unseen.
  const present = existsSync(reportFolder) ? readdirSync(reportFolder).filter((f) => f.endsWith(REPORT_SUFFIX)) : [];
  for (const file of present.filter((f) => !expected.has(f))) {
    const path = join(reportFolder, file);
    if (update) {
      rmSync(path);
      outcome.written.push(`${show(path)} (deleted)`);
    } else {
      console.error(`error: ${show(path)} belongs to no entry point of ${pkg.name}'s exports`);
      outcome.changed.push(show(path));
    }
  }
}

/**
 * The import lines of a report that bring a type in from some package's `./internal` entry. A user-facing
 * signature must not name one: users are told not to import from there.
 * @param {string} report
 * @returns {string[]}
 */
function internalImports(report) {
  return report.split('\n').filter((line) => /^import .* from '[^']+\/internal(\/[^']*)?';$/.test(line));
}

/**
 * The reports read the packages' dist, which nx builds before this target only for the projects this one
 * depends on: every publishable package must be a devDependency of @mqkit/docs.
 * @param {import('./workspace').WorkspacePackage[]} packages
 * @returns {string[]}
 */
function missingBuildDependencies(packages) {
  const docs = readJson(join(__dirname, '..', 'package.json'));
  const declared = { ...docs.dependencies, ...docs.devDependencies };
  return packages.filter((pkg) => !(pkg.name in declared)).map((pkg) => pkg.name);
}

/**
 * Checks (or, with `update`, rewrites) the reports of these packages.
 * @param {import('./workspace').WorkspacePackage[]} packages
 * @param {{ update: boolean }} options
 * @returns {Outcome}
 */
function runReports(packages, { update }) {
  const tempRoot = mkdtempSync(join(tmpdir(), 'mqkit-api-'));
  /** @type {Outcome} */
  const outcome = { failed: [], changed: [], written: [], checked: 0 };
  try {
    for (const pkg of packages) reportPackage(pkg, { update, tempRoot }, outcome);
  } finally {
    rmSync(tempRoot, { recursive: true, force: true });
  }
  return outcome;
}

function main() {
  const args = process.argv.slice(2);
  const unknown = args.filter((arg) => arg !== '--update');
  if (unknown.length > 0) {
    console.error(`usage: api-reports.js [--update]  (unknown: ${unknown.join(' ')})`);
    return 2;
  }
  const update = args.includes('--update');
  const packages = publishablePackages();
  const missing = missingBuildDependencies(packages);
  if (missing.length > 0) {
    console.error(
      `error: apps/docs/package.json must list ${missing.join(', ')} in devDependencies (so ^build builds them)`,
    );
    return 1;
  }

  const started = Date.now();
  const outcome = runReports(packages, { update });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  for (const path of outcome.written) console.log(`updated ${path}`);
  if (outcome.failed.length > 0) console.error(`API Extractor reported errors in: ${outcome.failed.join(', ')}`);
  if (outcome.changed.length > 0) {
    console.error(
      `${outcome.changed.length} API report(s) differ from the committed ones:\n  ${outcome.changed.join('\n  ')}\n` +
        `If the change is intended, run \`${UPDATE_COMMAND}\` and commit the reports with it.`,
    );
  }
  const ok = outcome.failed.length === 0 && outcome.changed.length === 0;
  const verdict = update ? `${outcome.written.length} report(s) written` : ok ? 'all reports match' : 'checked';
  console.log(`API reports: ${outcome.checked} entry points of ${packages.length} packages, ${verdict} (${seconds}s)`);
  return ok ? 0 : 1;
}

if (require.main === module) process.exitCode = main();

module.exports = { internalImports, main, missingBuildDependencies, reportPackage, runReports };
