import { projectConfig } from '../vitest.shared.mts';

// Integration files run one at a time (they start real servers and whole consumer groups), after the unit
// projects (nx: test dependsOn ^test). The RocketMQ global setup starts a real cluster only for runs that include
// a file that needs one (*.rocketmq.spec.ts, src/rocketmq/, src/producer-cluster/; see needsCluster); the
// packaging one packs the publishable packages only for runs that include src/packaging/ files.
// src/compat/ is the compatibility suite, run per release by vitest.compat.mts (and .ci/run), not here.
export default projectConfig(import.meta.dirname, {
  exclude: ['src/compat/**', '**/node_modules/**'],
  fileParallelism: false,
  testTimeout: 60_000,
  hookTimeout: 120_000,
  globalSetup: ['./src/support/rocketmq.global-setup.ts', './src/packaging/packaging.global-setup.ts'],
});
