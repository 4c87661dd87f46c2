import type { ProvidingProject } from '@mqkit/transport-rocketmq/testing';
import { COMPAT_ACL } from './compat-acl';
import { compatTarget } from './compat-target';

/**
 * Starts the compatibility run's target: one name server and one broker of the target's release, with access
 * control on (ACL 1.0 on 4.x, ACL 2.0 on 5.x), so every test of the suite also signs its requests the way that
 * release checks them. The harness is imported here only, so a run of other files never needs Java.
 */
export default async function setup(project: ProvidingProject): Promise<() => Promise<void>> {
  const target = compatTarget();
  const { rocketMqGlobalSetup } = await import('@mqkit/transport-rocketmq/testing');
  process.env.MQKIT_ROCKETMQ_VERSION = target.release.release;
  return rocketMqGlobalSetup(project, { version: target.release.release, brokers: ['broker-a'], acl: COMPAT_ACL });
}
