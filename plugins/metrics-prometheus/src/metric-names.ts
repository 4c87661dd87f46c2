/**
 * Every metric the plugin exports, before the `prefix` option. Where RocketMQ 5's own clients define a metric
 * (apache/rocketmq-clients, `HistogramEnum` and `GaugeEnum`) its name is kept and, for histograms, followed by the
 * Prometheus unit suffix: RocketMQ records milliseconds into `rocketmq_process_time`; exported in base units it is
 * `rocketmq_process_time_seconds`, the name an OpenTelemetry Prometheus exporter gives a histogram in seconds.
 * The others follow Prometheus' conventions (`_total`, `_seconds`, `_bytes`, `_messages`).
 */
export const METRIC_NAMES = {
  /** Counter: messages whose handler call finished, by result (success, failure). */
  consumedMessages: 'rocketmq_consumed_messages_total',
  /** Histogram: handler call duration (RocketMQ's rocketmq_process_time). */
  processTime: 'rocketmq_process_time_seconds',
  /** Histogram: pull request to answer, a held long poll included (RocketMQ 4's PULL_RT). */
  pullLatency: 'rocketmq_consumer_pull_latency_seconds',
  /** Gauge: messages pulled and not yet finished (RocketMQ's rocketmq_consumer_cached_messages). */
  cachedMessages: 'rocketmq_consumer_cached_messages',
  /** Gauge: their body bytes (RocketMQ's rocketmq_consumer_cached_bytes). */
  cachedBytes: 'rocketmq_consumer_cached_bytes',
  /** Gauge: handler calls running. */
  inflightCalls: 'rocketmq_consumer_inflight_calls',
  /** Gauge, per owned queue: the broker's max offset minus the offset that may be committed. */
  queueLag: 'rocketmq_consumer_queue_lag_messages',
  /** Counter: rebalance passes that changed what this member owns of a topic. */
  rebalances: 'rocketmq_consumer_rebalances_total',
  /** Counter: failed messages handed on for a later delivery, by mode (broker: %RETRY%, local: a failed send-back). */
  retriedMessages: 'rocketmq_consumer_retried_messages_total',
  /** Counter: failed messages the broker dead-letters to `%DLQ%<group>`. */
  dlqMessages: 'rocketmq_consumer_dlq_messages_total',
  /** Counter: messages of producer calls, by kind and result. */
  sentMessages: 'rocketmq_sent_messages_total',
  /** Histogram: producer call duration, retries included (RocketMQ's rocketmq_send_cost_time). */
  sendCostTime: 'rocketmq_send_cost_time_seconds',
} as const;

export type MetricKey = keyof typeof METRIC_NAMES;

/** Label names: RocketMQ's where its clients define them (topic, consumer_group, invocation_status). */
export const LABELS = {
  consumerGroup: 'consumer_group',
  producerGroup: 'producer_group',
  topic: 'topic',
  result: 'result',
  invocationStatus: 'invocation_status',
  pullStatus: 'pull_status',
  brokerName: 'broker_name',
  queueId: 'queue_id',
  mode: 'mode',
  kind: 'kind',
} as const;

/**
 * Histogram buckets in seconds: RocketMQ's own boundaries (its milliseconds / 1000) so that dashboards line up
 * with Java clients. Sends add 1 s and 3 s (sendMsgTimeout): RocketMQ's 500 ms top would put every retried send
 * in +Inf. Pulls, which RocketMQ 5 has no histogram for, go up to the long poll's 30 s.
 */
export const BUCKETS = {
  processTime: [0.001, 0.005, 0.01, 0.1, 1, 10, 60],
  sendCostTime: [0.001, 0.005, 0.01, 0.02, 0.05, 0.2, 0.5, 1, 3],
  pullLatency: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 20, 30],
} as const;
