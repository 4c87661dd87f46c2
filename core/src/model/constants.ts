/** Java constant names as string literals, also exported as const objects (pinned in the foundation issue). */
export const MessageModel = { CLUSTERING: 'CLUSTERING', BROADCASTING: 'BROADCASTING' } as const;
export type MessageModel = (typeof MessageModel)[keyof typeof MessageModel];

export const ConsumeMode = { CONCURRENTLY: 'CONCURRENTLY', ORDERLY: 'ORDERLY' } as const;
export type ConsumeMode = (typeof ConsumeMode)[keyof typeof ConsumeMode];

export const ConsumeFromWhere = {
  CONSUME_FROM_LAST_OFFSET: 'CONSUME_FROM_LAST_OFFSET',
  CONSUME_FROM_FIRST_OFFSET: 'CONSUME_FROM_FIRST_OFFSET',
  CONSUME_FROM_TIMESTAMP: 'CONSUME_FROM_TIMESTAMP',
} as const;
export type ConsumeFromWhere = (typeof ConsumeFromWhere)[keyof typeof ConsumeFromWhere];

/**
 * What a handler may return. Returning nothing (or CONSUME_SUCCESS) is success; a throw counts as
 * RECONSUME_LATER (concurrently) or SUSPEND_CURRENT_QUEUE_A_MOMENT (orderly), as in RocketMQ.
 */
export const ConsumeStatus = {
  CONSUME_SUCCESS: 'CONSUME_SUCCESS',
  RECONSUME_LATER: 'RECONSUME_LATER',
  SUCCESS: 'SUCCESS',
  SUSPEND_CURRENT_QUEUE_A_MOMENT: 'SUSPEND_CURRENT_QUEUE_A_MOMENT',
} as const;
export type ConsumeStatus = (typeof ConsumeStatus)[keyof typeof ConsumeStatus];
export const { RECONSUME_LATER, SUSPEND_CURRENT_QUEUE_A_MOMENT, CONSUME_SUCCESS } = ConsumeStatus;

/** Message property keys RocketMQ uses (MessageConst). */
export const MessageConst = {
  TAGS: 'TAGS',
  KEYS: 'KEYS',
  UNIQ_KEY: 'UNIQ_KEY',
  WAIT: 'WAIT',
  DELAY: 'DELAY',
  /** RocketMQ 5 timer messages: an absolute time, or a delay from the broker's receipt. */
  TIMER_DELIVER_MS: 'TIMER_DELIVER_MS',
  TIMER_DELAY_SEC: 'TIMER_DELAY_SEC',
  TIMER_DELAY_MS: 'TIMER_DELAY_MS',
  RETRY_TOPIC: 'RETRY_TOPIC',
  REAL_TOPIC: 'REAL_TOPIC',
  REAL_QID: 'REAL_QID',
  ORIGIN_MESSAGE_ID: 'ORIGIN_MESSAGE_ID',
  RECONSUME_TIME: 'RECONSUME_TIME',
  MAX_RECONSUME_TIMES: 'MAX_RECONSUME_TIMES',
  CONSUME_START_TIME: 'CONSUME_START_TIME',
  MIN_OFFSET: 'MIN_OFFSET',
  MAX_OFFSET: 'MAX_OFFSET',
  SHARDING_KEY: '__SHARDINGKEY',
  /** RocketMQ 5.4 priority messages: the priority, an integer of at least 0. */
  PRIORITY: '_SYS_MSG_PRIORITY_',
  /** RocketMQ 5.5 lite topics: the message's lite (child) topic within its topic. */
  LITE_TOPIC: '__LITE_TOPIC',
  PRODUCER_GROUP: 'PGROUP',
  /** A half message of a transaction. */
  TRANSACTION_PREPARED: 'TRAN_MSG',
  /** Added by the broker to every stored message: the cluster, which names the reply topic. */
  CLUSTER: 'CLUSTER',
  /** Request-reply: set by the requester, copied into the reply. */
  CORRELATION_ID: 'CORRELATION_ID',
  REPLY_TO_CLIENT: 'REPLY_TO_CLIENT',
  /** The request's timeout in ms. */
  TTL: 'TTL',
  /** `reply` on a reply (MixAll.REPLY_MESSAGE_FLAG). */
  MSG_TYPE: 'MSG_TYPE',
  /** Added by the broker to every stored message: its regionId (message trace records carry it). */
  MSG_REGION: 'MSG_REGION',
  /** Added by the broker to every stored message: its traceOn; `false` keeps consumers from tracing it. */
  TRACE_ON: 'TRACE_ON',
} as const;

/** The reply topic of a cluster (MixAll.getReplyTopic): `<cluster>_REPLY_TOPIC`. */
export function replyTopicOf(cluster: string): string {
  return `${cluster}_REPLY_TOPIC`;
}

export const RETRY_GROUP_TOPIC_PREFIX = '%RETRY%';
export const DLQ_GROUP_TOPIC_PREFIX = '%DLQ%';

export function retryTopicOf(group: string): string {
  return RETRY_GROUP_TOPIC_PREFIX + group;
}
export function dlqTopicOf(group: string): string {
  return DLQ_GROUP_TOPIC_PREFIX + group;
}
export function isRetryTopic(topic: string): boolean {
  return topic.startsWith(RETRY_GROUP_TOPIC_PREFIX);
}

/** RocketMQ's default delay levels, level 1 = 1 s ... level 18 = 2 h. */
export const DEFAULT_DELAY_LEVELS_MS: readonly number[] = [
  1_000, 5_000, 10_000, 30_000, 60_000, 120_000, 180_000, 240_000, 300_000, 360_000, 420_000, 480_000, 540_000, 600_000,
  1_200_000, 1_800_000, 3_600_000, 7_200_000,
];
