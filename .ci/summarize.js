// Sums reports/vitest/*.json (one per project with a test script) and reports/checks/*.json (the static checks .ci/run
// ran, one test each). A project without a report, a skipped or todo test, and a test file that failed to load count
// as failures. Prints "N passed, N failed" last.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const rootPkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const projectDirs = rootPkg.workspaces.flatMap((pattern) => {
  if (!pattern.endsWith('/*')) return [pattern];
  const base = pattern.slice(0, -2);
  return fs.readdirSync(path.join(root, base)).map((d) => path.join(base, d));
});

let passed = 0;
let failed = 0;

/** Adds one vitest JSON report: skipped and todo tests, and files that failed to load, count as failures. */
function count(label, report) {
  const r = JSON.parse(fs.readFileSync(report, 'utf8'));
  const skipped = (r.numPendingTests || 0) + (r.numTodoTests || 0);
  const brokenFiles = (r.testResults || []).filter(
    (f) => f.status === 'failed' && !(f.assertionResults || []).some((a) => a.status === 'failed'),
  ).length;
  passed += r.numPassedTests || 0;
  failed += (r.numFailedTests || 0) + skipped + brokenFiles;
  console.error(
    `[ci] ${label}: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped, ${brokenFiles} files failed to run`,
  );
}
for (const dir of projectDirs) {
  const pkgFile = path.join(root, dir, 'package.json');
  if (!fs.existsSync(pkgFile)) continue;
  const pkg = JSON.parse(fs.readFileSync(pkgFile, 'utf8'));
  if (!pkg.scripts?.test) continue;
  const report = path.join(root, 'reports', 'vitest', `${path.basename(dir)}.json`);
  if (!fs.existsSync(report)) {
    console.error(`[ci] ${pkg.name}: no test report (${path.relative(root, report)}): counted as failed`);
    failed += 1;
    continue;
  }
  count(pkg.name, report);
}
// The static checks .ci/run ran before the tests (reports/checks/<name>.json): one test each.
const checksDir = path.join(root, 'reports', 'checks');
for (const file of fs.existsSync(checksDir) ? fs.readdirSync(checksDir).sort() : []) {
  const check = JSON.parse(fs.readFileSync(path.join(checksDir, file), 'utf8'));
  if (check.status === 0) passed += 1;
  else failed += 1;
  console.error(
    `[ci] check ${check.name} (${check.command}): ${check.status === 0 ? 'passed' : 'FAILED'} in ${check.seconds} s`,
  );
}
// Extra runs (.ci/run's run_extra: specs under another runtime): each name in expected.txt has a vitest report.
const extraDir = path.join(root, 'reports', 'extra');
const expectedFile = path.join(extraDir, 'expected.txt');
const extras = fs.existsSync(expectedFile) ? fs.readFileSync(expectedFile, 'utf8').split('\n').filter(Boolean) : [];
for (const name of extras) {
  const report = path.join(extraDir, `${name}.json`);
  if (!fs.existsSync(report)) {
    console.error(`[ci] extra run ${name}: no test report: counted as failed`);
    failed += 1;
    continue;
  }
  count(`extra run ${name}`, report);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
