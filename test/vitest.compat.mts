import { join } from 'node:path';
import { projectConfig } from '../vitest.shared.mts';

// The compatibility suite (src/compat/) on one target: MQKIT_COMPAT_TARGET names it (a release such as 4.9.7, or
// proxy-5.3.3), and its own global setup starts that cluster. The report goes to reports/compat/<target>.json,
// which tools/compat-table.mjs turns into the README's release table. `npm run compat` runs every target.
const target = process.env.MQKIT_COMPAT_TARGET || '5.3.3';
export default projectConfig(import.meta.dirname, {
  include: ['src/compat/**/*.spec.ts'],
  fileParallelism: false,
  testTimeout: 90_000,
  hookTimeout: 240_000,
  globalSetup: ['./src/compat/compat.global-setup.ts'],
  outputFile: { json: join(import.meta.dirname, '..', 'reports', 'compat', `${target}.json`) },
});
