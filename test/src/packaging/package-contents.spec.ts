import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NEVER_SHIPPED } from './manifest-rules';
import { analyseUnpacked, binTargets } from './package-reachability';
import { packedPackages } from './packed';
import { WORKSPACE_ROOT } from './workspace-packages';

const rootLicense = readFileSync(join(WORKSPACE_ROOT, 'LICENSE'), 'utf8');

// What `npm pack` puts in each tarball (the ones the global setup packed, read unpacked): the metadata a registry
// page needs, and nothing that no entry point reaches (a file nobody can import is dead weight at best, and an
// undocumented API at worst).
describe.each(packedPackages().map((p) => [p.name, p] as const))('%s tarball', (_name, pkg) => {
  const report = analyseUnpacked(pkg.manifest, pkg.files, pkg.unpackedDir);
  const read = (path: string): string => readFileSync(join(pkg.unpackedDir, path), 'utf8');

  it("holds the root's LICENSE word for word, and a README", () => {
    expect(pkg.files, `LICENSE in ${pkg.tarball}`).toContain('LICENSE');
    expect(read('LICENSE'), `the LICENSE in ${pkg.tarball} differs from the root LICENSE`).toBe(rootLicense);
    expect(
      pkg.files.filter((f) => /^readme(\.|$)/i.test(f)),
      `README in ${pkg.tarball}`,
    ).not.toEqual([]);
  });

  it('holds no test, fixture or test and build configuration', () => {
    expect(pkg.files.filter((f) => NEVER_SHIPPED.some((re) => re.test(f)))).toEqual([]);
  });

  it('holds no file that its entry points (main, types, exports, bin) do not reach', () => {
    expect(report.unreachable, `unreachable files in ${pkg.tarball} (exclude them in "files")`).toEqual([]);
  });

  it('holds every file its entry points, their relative imports and their source map comments name', () => {
    expect(report.missing, `missing files in ${pkg.tarball}`).toEqual([]);
  });

  it('has source maps whose sources are inlined or shipped, and ships src/ for them', () => {
    expect(report.unresolvedMapSources, `map sources in ${pkg.tarball} that resolve to nothing`).toEqual([]);
    expect(
      report.reachable.filter((f) => f.startsWith('src/')),
      'sources under src/ that the maps point at',
    ).not.toEqual([]);
  });

  it('starts every bin with a node shebang', () => {
    for (const bin of binTargets(pkg.manifest))
      expect(read(bin).startsWith('#!/usr/bin/env node\n'), `${bin} starts with a node shebang`).toBe(true);
  });
});
