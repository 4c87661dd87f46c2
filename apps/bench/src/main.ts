import 'reflect-metadata';
import { CASES } from './cases/index';

/**
 * `npm run bench -- [case] [flags]`: with no case, every embedded case. Exits 0 whenever it measured, target met
 * or not; a target is a figure to report, not a test.
 */
async function main(argv: readonly string[]): Promise<void> {
  const [name, ...rest] = argv;
  const named = name && !name.startsWith('--') ? CASES.find((c) => c.name === name) : undefined;
  if (name && !name.startsWith('--') && !named) {
    process.stderr.write(`unknown case ${name}; known: ${CASES.map((c) => c.name).join(', ')}\n`);
    process.exitCode = 2;
    return;
  }
  const selected = named ? [named] : CASES.filter((c) => c.embedded);
  const args = named ? rest : argv;
  for (const c of selected) {
    process.stderr.write(`# ${c.name}: ${c.description}\n`);
    const result = await c.run(args);
    process.stdout.write(`${JSON.stringify({ case: c.name, ...result })}\n`);
  }
}

main(process.argv.slice(2)).then(
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(1);
  },
);
