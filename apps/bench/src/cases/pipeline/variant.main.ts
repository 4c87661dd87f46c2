import 'reflect-metadata';
import { peakRssMb } from '../bench-util';
import { runVariant, type VariantSettings } from './pipeline-variants';

/**
 * One `pipeline` variant in a process of its own (`node --expose-gc dist/cases/pipeline/variant.main.js
 * '<settings json>'`), so no variant runs on a heap or JIT state another left behind. Prints `RESULT {json}`.
 */
async function main(): Promise<void> {
  const settings = JSON.parse(process.argv[2] ?? '{}') as VariantSettings;
  const result = await runVariant(settings);
  process.stdout.write(`RESULT ${JSON.stringify({ variant: settings.variant, ...result, peakRssMb: peakRssMb() })}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(1);
  },
);
