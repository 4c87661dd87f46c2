import type { ConsumeFromWhere, ConsumeMode, MessageModel } from '../model/constants';
import type { StrategyOption } from '../spi/allocation-strategy';
import type { Codec } from '../spi/codec';

/**
 * Options of `@Consumer(...)`. Names and defaults are DefaultMQPushConsumer's
 * (docs/rocketmq-consumer-model.md#defaultmqpushconsumer-options), plus `consumeMode` (from rocketmq-spring), `sql`,
 * `batch`, `codec`, `reply` and mqkit's own `exclusiveHandoff`. Options that describe the group (everything but topic,
 * tags, sql, batch, codec and reply) must agree when several declarations share a group.
 */
export interface ConsumerOptions {
  /** consumerGroup: 1-120 chars of `[%|a-zA-Z0-9_-]`, not `DEFAULT_CONSUMER`. */
  group: string;
  /** 1-127 chars of `[%|a-zA-Z0-9_-]`. */
  topic: string;
  /** TAG expression: `*` (default) or `TagA || TagB`. Exact, case-sensitive. Not with `sql`. */
  tags?: string;
  /**
   * SQL92 property filter, evaluated by the broker (RocketMQ's `MessageSelector.bySql`), e.g.
   * `region = 'eu' AND amount > 100`; TAGS is a property too. Not with `tags`. A RocketMQ broker needs
   * `enablePropertyFilter=true`; retries (`%RETRY%<group>`) are delivered unfiltered, as in Java.
   */
  sql?: string;
  /** Hand the handler arrays of up to consumeMessageBatchMaxSize messages. Default false: one message per call. */
  batch?: boolean;
  /** Decodes `payload`; JSON by default. */
  codec?: Codec;
  /**
   * Request-reply (rocketmq-spring's RocketMQReplyListener): the handler's return value is sent back to the
   * requester of each request message (`producer.request`), encoded with `codec` (a Buffer or a string as it is).
   * Failures are thrown, as a reply is whatever the handler returns. Not with `batch`.
   */
  reply?: boolean;
  messageModel?: MessageModel;
  consumeMode?: ConsumeMode;
  consumeFromWhere?: ConsumeFromWhere;
  /** For CONSUME_FROM_TIMESTAMP: `yyyyMMddHHmmss` in local time. Default: 30 minutes before start. */
  consumeTimestamp?: string;
  /** allocateMessageQueueStrategy: a registered name ("AVG"), an instance, or a class. Default "AVG". */
  strategy?: StrategyOption;
  consumeThreadMin?: number;
  consumeThreadMax?: number;
  consumeConcurrentlyMaxSpan?: number;
  pullThresholdForQueue?: number;
  /** MiB. */
  pullThresholdSizeForQueue?: number;
  /** -1 (off) or a total divided among the owned queues. */
  pullThresholdForTopic?: number;
  /** MiB; -1 (off) or a total divided among the owned queues. */
  pullThresholdSizeForTopic?: number;
  /** ms to wait after a FOUND pull before the next one. */
  pullInterval?: number;
  consumeMessageBatchMaxSize?: number;
  pullBatchSize?: number;
  pullBatchSizeInBytes?: number;
  /** -1: 16 for CONCURRENTLY, unlimited for ORDERLY. */
  maxReconsumeTimes?: number;
  suspendCurrentQueueTimeMillis?: number;
  /** Minutes a handler call may run before its messages are retried (fractions allowed). */
  consumeTimeout?: number;
  /**
   * mqkit: take a queue only after its previous owner drained, persisted and unlocked it (broker queue locks in
   * CONCURRENTLY mode too), so rebalances cause no duplicates. Costs lock round trips, and a dead member's queues
   * move only after the broker lock expires.
   */
  exclusiveHandoff?: boolean;
}

/** The group-level options with every default applied. */
export interface ResolvedGroupOptions {
  readonly group: string;
  readonly messageModel: MessageModel;
  readonly consumeMode: ConsumeMode;
  readonly consumeFromWhere: ConsumeFromWhere;
  readonly consumeTimestamp: string;
  readonly strategy: StrategyOption;
  readonly consumeThreadMin: number;
  readonly consumeThreadMax: number;
  readonly consumeConcurrentlyMaxSpan: number;
  readonly pullThresholdForQueue: number;
  readonly pullThresholdSizeForQueue: number;
  readonly pullThresholdForTopic: number;
  readonly pullThresholdSizeForTopic: number;
  readonly pullInterval: number;
  readonly consumeMessageBatchMaxSize: number;
  readonly pullBatchSize: number;
  readonly pullBatchSizeInBytes: number;
  readonly maxReconsumeTimes: number;
  readonly suspendCurrentQueueTimeMillis: number;
  readonly consumeTimeout: number;
  readonly exclusiveHandoff: boolean;
}

/** Option keys that describe the group, not one subscription. */
export const GROUP_OPTION_KEYS = [
  'messageModel',
  'consumeMode',
  'consumeFromWhere',
  'consumeTimestamp',
  'strategy',
  'consumeThreadMin',
  'consumeThreadMax',
  'consumeConcurrentlyMaxSpan',
  'pullThresholdForQueue',
  'pullThresholdSizeForQueue',
  'pullThresholdForTopic',
  'pullThresholdSizeForTopic',
  'pullInterval',
  'consumeMessageBatchMaxSize',
  'pullBatchSize',
  'pullBatchSizeInBytes',
  'maxReconsumeTimes',
  'suspendCurrentQueueTimeMillis',
  'consumeTimeout',
  'exclusiveHandoff',
] as const satisfies readonly (keyof ConsumerOptions)[];

export type GroupOptionKey = (typeof GROUP_OPTION_KEYS)[number];

/** DefaultMQPushConsumer's defaults. */
export const CONSUMER_DEFAULTS = Object.freeze({
  messageModel: 'CLUSTERING',
  consumeMode: 'CONCURRENTLY',
  consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
  strategy: 'AVG',
  consumeThreadMin: 20,
  consumeThreadMax: 20,
  consumeConcurrentlyMaxSpan: 2000,
  pullThresholdForQueue: 1000,
  pullThresholdSizeForQueue: 100,
  pullThresholdForTopic: -1,
  pullThresholdSizeForTopic: -1,
  pullInterval: 0,
  consumeMessageBatchMaxSize: 1,
  pullBatchSize: 32,
  pullBatchSizeInBytes: 256 * 1024,
  maxReconsumeTimes: -1,
  suspendCurrentQueueTimeMillis: 1000,
  consumeTimeout: 15,
  exclusiveHandoff: false,
} as const);
