import { projectConfig } from '../../vitest.shared.mts';

// The tools live in tools/ (no src: apps/docs builds nothing of its own).
export default projectConfig(import.meta.dirname, { include: ['tools/**/*.spec.ts'], testTimeout: 60_000 });
