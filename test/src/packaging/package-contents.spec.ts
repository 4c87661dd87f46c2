import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyseUnpacked } from './package-reachability';
import { packedPackages } from './packed';

// What `npm pack` puts in each tarball: the metadata a registry page needs, and nothing that no entry point
// reaches (a file nobody can import is dead weight at best, and an undocumented API at worst).
describe.each(packedPackages().map((p) => [p.name, p] as const))('%s tarball', (_name, pkg) => {
  const report = analyseUnpacked(pkg.manifest, pkg.files, pkg.unpackedDir);

  it('holds a LICENSE and a README', () => {
    const top = readdirSync(pkg.unpackedDir);
    expect(
      top.filter((f) => /^licen[cs]e(\.|$)/i.test(f)),
      `LICENSE in ${pkg.tarball}`,
    ).not.toEqual([]);
    expect(
      top.filter((f) => /^readme(\.|$)/i.test(f)),
      `README in ${pkg.tarball}`,
    ).not.toEqual([]);
  });

  it('holds no file that its entry points (main, types, exports, bin) do not reach', () => {
    expect(report.unreachable, `unreachable files in ${pkg.tarball}`).toEqual([]);
  });

  it('holds every file its entry points and their relative imports name', () => {
    expect(report.missing, `missing files in ${pkg.tarball}`).toEqual([]);
  });

  it('has source maps whose sources are inlined or shipped', () => {
    expect(report.unresolvedMapSources.length, `first: ${report.unresolvedMapSources.slice(0, 5).join(', ')}`).toBe(0);
  });
});
