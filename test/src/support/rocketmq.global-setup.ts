import type { ProvidingProject } from '@mqkit/transport-rocketmq/testing';

/** The part of vitest's TestProject read here: which files this run collected (vitest's state manager). */
interface RunProject extends ProvidingProject {
  readonly vitest?: { readonly state?: { getPaths?(): string[] } };
}

/**
 * Files that run against the real cluster: a feature's `<name>.rocketmq.spec.ts` (next to its embedded spec),
 * src/rocketmq/, src/producer-cluster/, and the Nest real-cluster spec.
 */
export function needsCluster(path: string): boolean {
  const p = path.replace(/\\/g, '/');
  return (
    p.endsWith('.rocketmq.spec.ts') ||
    p.includes('/src/rocketmq/') ||
    p.includes('/src/producer-cluster/') ||
    p.endsWith('/src/nestjs/nestjs-rocketmq.spec.ts')
  );
}

/**
 * Starts one real RocketMQ cluster for the run, but only when the run includes a file that needs it (vitest
 * calls global setups for every run of this project, and a JVM cluster costs a minute of a 2-core box). When the
 * collected files cannot be told, the cluster is started. `MQKIT_ROCKETMQ_NAMESRV` uses an existing cluster.
 * The harness is imported only then, so other runs do not depend on it.
 */
export default async function setup(project: RunProject): Promise<() => Promise<void>> {
  const paths = project.vitest?.state?.getPaths?.();
  if (paths && paths.length > 0 && !paths.some(needsCluster)) return async () => undefined;
  const { rocketMqGlobalSetup } = await import('@mqkit/transport-rocketmq/testing');
  return rocketMqGlobalSetup(project);
}
