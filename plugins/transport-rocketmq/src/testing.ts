/**
 * The RocketMQ test kit: a real-cluster harness (name server + brokers from Maven Central, on loopback), a vitest
 * global setup sharing one cluster per run, and small admin helpers for tests. Needs Java 17+ and Maven, or
 * `MQKIT_ROCKETMQ_NAMESRV` pointing at a running cluster. See HARNESS.md.
 */
export { RocketMqHarnessError, type RocketMqHarnessFailure } from './testing/rocketmq-harness.error';
export {
  ROCKETMQ_VERSION,
  NAMESRV_ENV,
  CACHE_DIR_ENV,
  rocketMqVersion,
  mqkitCacheDir,
} from './testing/rocketmq-harness.settings';
export { findJavaToolchain, parseJavaVersion, type JavaToolchain } from './testing/java-toolchain';
export {
  provisionRocketMq,
  provisionRocketMqProxy,
  type RocketMqDistribution,
  type ProvisionOptions,
} from './testing/rocketmq-provisioner';
export { replicaName, startRocketMqCluster, type RocketMqClusterOptions } from './testing/start-rocketmq-cluster';
export {
  RocketMqCluster,
  attachRocketMqCluster,
  connectRocketMqCluster,
  type RocketMqBrokerInfo,
} from './testing/rocketmq-cluster';
export {
  rocketMqGlobalSetup,
  rocketMqTestCluster,
  CLUSTER_FILE_ENV,
  type ProvidedRocketMq,
  type ProvidingProject,
} from './testing/rocketmq-global-setup';
export { RocketMqProxy, startRocketMqProxy, type RocketMqProxyOptions } from './testing/start-rocketmq-proxy';
export { createTopic } from './testing/topic-admin';
export { sendProbeRequest, ProbeCode, type ProbeOptions, type ProbeRequest } from './testing/remoting-probe';
export type { ProbeCommand } from './testing/probe-frame.codec';
export { signExtFields, type AclCredentials } from './testing/acl-signature';
export { createAclUser, type AclGrant } from './testing/acl-admin';
export { readClusterInfo, type RegisteredBroker } from './testing/cluster-readiness';
export { diskUsedRatio } from './testing/disk-usage';
export {
  ROCKETMQ_RELEASES,
  rocketMqRelease,
  type RocketMqAclModel,
  type RocketMqReleaseTraits,
} from './testing/rocketmq-releases';
