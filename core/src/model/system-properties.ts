import { MessageConst } from './constants';

/** Property names the producer sets itself; users may not put them. */
export const RESERVED_PROPERTIES: ReadonlySet<string> = new Set([
  ...Object.values(MessageConst),
  'TRAN_MSG',
  'INSTANCE_ID',
  'TIMER_DELIVER_MS',
  'TIMER_DELAY_SEC',
  'TIMER_DELAY_MS',
  'MSG_REGION',
  'TRACE_ON',
  'CORRELATION_ID',
  'REPLY_TO_CLIENT',
  'TTL',
]);

/**
 * RocketMQ 5.3.3's MessageConst.STRING_HASH_SET: the property names its Message.putUserProperty refuses, and that its
 * gRPC proxy leaves out of a message's user properties. They are the client's and the broker's own (tags, keys,
 * UNIQ_KEY, retry and DLQ bookkeeping, timers, transactions, request-reply, POP).
 */
const ROCKETMQ_SYSTEM_PROPERTIES: readonly string[] = [
  'TRACE_ON',
  'MSG_REGION',
  'KEYS',
  'TAGS',
  'WAIT',
  'DELAY',
  'RETRY_TOPIC',
  'REAL_TOPIC',
  'REAL_QID',
  'TRAN_MSG',
  'PGROUP',
  'MIN_OFFSET',
  'MAX_OFFSET',
  'BUYER_ID',
  'ORIGIN_MESSAGE_ID',
  'TRANSFER_FLAG',
  'CORRECTION_FLAG',
  'MQ2_FLAG',
  'RECONSUME_TIME',
  'UNIQ_KEY',
  'MAX_RECONSUME_TIMES',
  'CONSUME_START_TIME',
  'POP_CK',
  'POP_CK_OFFSET',
  '1ST_POP_TIME',
  'TRAN_PREPARED_QUEUE_OFFSET',
  'DUP_INFO',
  'EXTEND_UNIQ_INFO',
  'INSTANCE_ID',
  'CORRELATION_ID',
  'REPLY_TO_CLIENT',
  'TTL',
  'ARRIVE_TIME',
  'PUSH_REPLY_TIME',
  'CLUSTER',
  'MSG_TYPE',
  'INNER_MULTI_QUEUE_OFFSET',
  'TIMER_DELAY_MS',
  'TIMER_DELAY_SEC',
  'TIMER_DELIVER_MS',
  'TIMER_ENQUEUE_MS',
  'TIMER_DEQUEUE_MS',
  'TIMER_ROLL_TIMES',
  'TIMER_OUT_MS',
  'TIMER_DEL_UNIQKEY',
  'TIMER_DELAY_LEVEL',
  '__BORNHOST',
  'BORN_TIMESTAMP',
  'DLQ_ORIGIN_TOPIC',
  'DLQ_ORIGIN_MESSAGE_ID',
  '__CRC32#',
];

/** RocketMQ's set, and what mqkit's producer refuses as a user property besides (its sharding key). */
const SYSTEM_PROPERTIES: ReadonlySet<string> = new Set([...ROCKETMQ_SYSTEM_PROPERTIES, ...RESERVED_PROPERTIES]);

/** RocketMQ's transient properties (never stored, set on pulled messages by the client). */
const TRANSIENT_PREFIX = '__RMQ.TRANSIENT.';

/** A property name RocketMQ or mqkit sets itself, rather than the application that sent the message. */
export function isSystemProperty(name: string): boolean {
  return SYSTEM_PROPERTIES.has(name) || name.startsWith(TRANSIENT_PREFIX);
}

/** The properties the sender put (`send({ properties })`), without the system ones; in the order they came. */
export function userProperties(properties: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(properties).filter(([name]) => !isSystemProperty(name)));
}
