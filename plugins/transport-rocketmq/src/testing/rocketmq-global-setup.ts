import { existsSync } from 'node:fs';
import { attachRocketMqCluster, connectRocketMqCluster, type RocketMqCluster } from './rocketmq-cluster';
import { RocketMqHarnessError } from './rocketmq-harness.error';
import { NAMESRV_ENV } from './rocketmq-harness.settings';
import { startRocketMqCluster, type RocketMqClusterOptions } from './start-rocketmq-cluster';

/** Env var the global setup sets for test workers: the run's cluster descriptor (cluster.json). */
export const CLUSTER_FILE_ENV = 'MQKIT_ROCKETMQ_CLUSTER_FILE';

/** What the global setup provides to test files under the key `mqkitRocketMq` (vitest `inject`). */
export interface ProvidedRocketMq {
  readonly namesrvAddr: string;
  /** The descriptor file, or undefined when the run uses an existing cluster (`MQKIT_ROCKETMQ_NAMESRV`). */
  readonly descriptorFile: string | undefined;
}

/** The part of vitest's TestProject the setup uses (kept structural so this package needs no vitest at runtime). */
export interface ProvidingProject {
  provide(key: string, value: unknown): void;
}

/**
 * A vitest globalSetup that starts one cluster for the whole run, or uses the one `MQKIT_ROCKETMQ_NAMESRV`
 * names. Test files get it with {@link rocketMqTestCluster} (the addresses also go into env vars and into
 * `provide('mqkitRocketMq', …)`). Returns the teardown, which stops the cluster.
 *
 * @example
 * // test/rocketmq.global-setup.ts, listed in vitest's `globalSetup`
 * export { rocketMqGlobalSetup as default } from '@mqkit/transport-rocketmq/testing';
 */
export async function rocketMqGlobalSetup(
  project?: ProvidingProject,
  options: RocketMqClusterOptions = {},
): Promise<() => Promise<void>> {
  const existing = process.env[NAMESRV_ENV];
  if (existing && !process.env[CLUSTER_FILE_ENV]) {
    project?.provide('mqkitRocketMq', { namesrvAddr: existing, descriptorFile: undefined } satisfies ProvidedRocketMq);
    return async () => undefined;
  }
  const started = Date.now();
  const cluster = await startRocketMqCluster(options);
  process.stderr.write(
    `[mqkit] RocketMQ ${cluster.version} cluster at ${cluster.namesrvAddr} ready in ${Date.now() - started} ms\n`,
  );
  // Workers are forked after global setup and inherit these.
  process.env[NAMESRV_ENV] = cluster.namesrvAddr;
  process.env[CLUSTER_FILE_ENV] = cluster.descriptorFile!;
  project?.provide('mqkitRocketMq', {
    namesrvAddr: cluster.namesrvAddr,
    descriptorFile: cluster.descriptorFile,
  } satisfies ProvidedRocketMq);
  return async () => {
    delete process.env[NAMESRV_ENV];
    delete process.env[CLUSTER_FILE_ENV];
    await cluster.stop();
  };
}

/**
 * The run's cluster inside a test file: attached to the global setup's cluster (brokers can be stopped and
 * restarted; `stop()` does nothing), or connected to `MQKIT_ROCKETMQ_NAMESRV`'s existing cluster.
 */
export async function rocketMqTestCluster(): Promise<RocketMqCluster> {
  const file = process.env[CLUSTER_FILE_ENV];
  if (file && existsSync(file)) return attachRocketMqCluster(file);
  const namesrv = process.env[NAMESRV_ENV];
  if (namesrv) return connectRocketMqCluster(namesrv);
  throw new RocketMqHarnessError(
    'start',
    `no RocketMQ cluster for this test: add rocketMqGlobalSetup to vitest's globalSetup, or set ${NAMESRV_ENV}=host:port`,
  );
}
