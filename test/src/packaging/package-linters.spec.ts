import { describe, expect, it } from 'vitest';
import { attw, publint } from './package-linters';
import { packedPackages } from './packed';

// The two linters users and registries run on a package, on exactly what `npm pack` produced.
describe.each(packedPackages().map((p) => [p.name, p] as const))('%s tarball', (_name, pkg) => {
  it('passes publint with no error, warning or suggestion', async () => {
    const { findings } = await publint(pkg.tarball);
    expect(findings, `publint ${pkg.tarball}`).toEqual([]);
  });

  it('passes are-the-types-wrong (profile node16)', async () => {
    const { findings } = await attw(pkg.tarball);
    expect(findings, `attw ${pkg.tarball} --profile node16`).toEqual([]);
  });
});
