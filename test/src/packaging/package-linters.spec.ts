import { describe, it } from 'vitest';
import { concurrencyLimit } from './concurrency-limit';
import { attw, publint } from './package-linters';
import { packedPackages } from './packed';

// Each linter run is a node process of its own (attw loads a TypeScript compiler): the tests run concurrently,
// two processes at a time, which fills two cores without piling more on them.
const limit = concurrencyLimit(2);

// The two linters users and registries run on a package, on exactly what `npm pack` produced.
describe.concurrent('publint and are-the-types-wrong', () => {
  describe.each(packedPackages().map((p) => [p.name, p] as const))('%s tarball', (_name, pkg) => {
    it('passes publint with no error, warning or suggestion', async ({ expect }) => {
      const { findings } = await limit(() => publint(pkg.tarball));
      expect(findings, `publint ${pkg.tarball}`).toEqual([]);
    });

    it('passes are-the-types-wrong (profile node16)', async ({ expect }) => {
      const { findings } = await limit(() => attw(pkg.tarball));
      expect(findings, `attw ${pkg.tarball} --profile node16`).toEqual([]);
    });
  });
});
