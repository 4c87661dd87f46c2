import type { ProvidingProject } from '@mqkit/transport-rocketmq/testing';
import { COMPAT_ACL } from './compat-acl';
import { COMPAT_ENDPOINT_ENV, compatTarget } from './compat-target';

/**
 * Starts the compatibility run's target: one name server and one broker of the target's release, with access
 * control on (ACL 1.0 on 4.x, ACL 2.0 on 5.x), so every test of the suite also signs its requests the way that
 * release checks them; for a proxy target, rocketmq-proxy in cluster mode in front of them, whose remoting
 * endpoint the suite's clients then use as their name server. The harness is imported here only, so a run of
 * other files never needs Java.
 */
export default async function setup(project: ProvidingProject): Promise<() => Promise<void>> {
  const target = compatTarget();
  const testing = await import('@mqkit/transport-rocketmq/testing');
  process.env.MQKIT_ROCKETMQ_VERSION = target.release.release;
  const stopCluster = await testing.rocketMqGlobalSetup(project, {
    version: target.release.release,
    brokers: ['broker-a'],
    acl: COMPAT_ACL,
  });
  if (!target.viaProxy) return stopCluster;
  try {
    const started = Date.now();
    const proxy = await testing.startRocketMqProxy(await testing.rocketMqTestCluster());
    process.stderr.write(`[mqkit] rocketmq-proxy at ${proxy.remotingAddr} ready in ${Date.now() - started} ms\n`);
    process.env[COMPAT_ENDPOINT_ENV] = proxy.remotingAddr;
    return async () => {
      delete process.env[COMPAT_ENDPOINT_ENV];
      await proxy.stop();
      await stopCluster();
    };
  } catch (error) {
    await stopCluster();
    throw error;
  }
}
