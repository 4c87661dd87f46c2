/**
 * RocketMQ's system topics (TopicValidator.SYSTEM_TOPIC_SET and the `rmq_sys_` prefix): never wrapped in a
 * namespace, flagged as system in topic lists.
 */
const SYSTEM_TOPICS: ReadonlySet<string> = new Set([
  'TBW102',
  'SCHEDULE_TOPIC_XXXX',
  'BenchmarkTest',
  'RMQ_SYS_TRANS_HALF_TOPIC',
  'RMQ_SYS_TRACE_TOPIC',
  'RMQ_SYS_TRANS_OP_HALF_TOPIC',
  'TRANS_CHECK_MAX_TIME_TOPIC',
  'SELF_TEST_TOPIC',
  'OFFSET_MOVED_EVENT',
  'CHECKPOINT_TOPIC',
]);

/** TopicValidator.isSystemTopic. */
export function isSystemTopic(topic: string): boolean {
  return SYSTEM_TOPICS.has(topic) || topic.startsWith('rmq_sys_');
}

/**
 * A topic the cluster made for itself: a system topic, or one a broker creates from its configuration: the
 * cluster's name and each broker's name (clusterTopicEnable, brokerTopicEnable; the name server's
 * GET_SYSTEM_TOPIC_LIST_FROM_NS answers these) and `<cluster>_REPLY_TOPIC` (request-reply).
 */
export function isClusterTopic(
  topic: string,
  cluster: { readonly clusterNames: Iterable<string>; readonly brokerNames: Iterable<string> },
): boolean {
  if (isSystemTopic(topic)) return true;
  for (const name of cluster.clusterNames) if (topic === name || topic === `${name}_REPLY_TOPIC`) return true;
  for (const name of cluster.brokerNames) if (topic === name) return true;
  return false;
}

/** Topics RocketMQ's client refuses to send to (Validators.checkMessage). */
export const FORBIDDEN_TOPICS: ReadonlySet<string> = new Set([
  'SCHEDULE_TOPIC_XXXX',
  'RMQ_SYS_TRANS_HALF_TOPIC',
  'RMQ_SYS_TRANS_OP_HALF_TOPIC',
  'TRANS_CHECK_MAX_TIME_TOPIC',
  'SELF_TEST_TOPIC',
  'OFFSET_MOVED_EVENT',
]);

/** The trace topic a broker creates when `traceTopicEnable=true` (TopicValidator.RMQ_SYS_TRACE_TOPIC). */
export const RMQ_SYS_TRACE_TOPIC = 'RMQ_SYS_TRACE_TOPIC';
