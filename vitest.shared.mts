import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type ViteUserConfig } from 'vitest/config';

const workspaceRoot = dirname(fileURLToPath(import.meta.url));

/**
 * One vitest configuration for every project. Each run writes a JSON report under
 * reports/vitest/<project>.json, which .ci/run sums (a project without a report counts as failed).
 */
export function projectConfig(projectDir: string, overrides: ViteUserConfig['test'] = {}): ViteUserConfig {
  const name = basename(resolve(projectDir));
  return defineConfig({
    // Oxc reads decorator settings from a tsconfig that includes the file; set them here as well so
    // fixtures outside a tsconfig's include still get legacy decorators and design:* metadata.
    oxc: { decorator: { legacy: true, emitDecoratorMetadata: true } },
    test: {
      include: ['src/**/*.spec.ts'],
      environment: 'node',
      reporters: ['default', 'json'],
      outputFile: { json: join(workspaceRoot, 'reports', 'vitest', `${name}.json`) },
      ...overrides,
    },
  });
}
