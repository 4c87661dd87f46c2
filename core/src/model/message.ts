import type { MessageQueue } from './message-queue';

/**
 * A stored message as a transport hands it over: every field of RocketMQ's stored message record
 * (MessageExt). Transports build these; core wraps them into {@link Message} for handlers.
 */
export interface MessageRecord {
  readonly topic: string;
  readonly brokerName: string;
  readonly queueId: number;
  /** Logical index in the queue. */
  readonly queueOffset: number;
  /** Physical offset in the broker's commit log; send-back looks the message up by it. */
  readonly commitLogOffset: number;
  readonly flag: number;
  readonly sysFlag: number;
  readonly body: Buffer;
  readonly properties: Readonly<Record<string, string>>;
  readonly bornTimestamp: number;
  /** `ip:port` (IPv6 in brackets). */
  readonly bornHost: string;
  readonly storeTimestamp: number;
  readonly storeHost: string;
  readonly reconsumeTimes: number;
  readonly preparedTransactionOffset: number;
  /** The broker's id for the stored record: hex of store host, port and commit log offset. */
  readonly offsetMsgId: string;
  readonly bodyCRC: number;
  readonly storeSize: number;
}

/** What a handler receives: RocketMQ's fields plus `payload`, decoded by the consumer's codec on first access. */
export interface Message<T = unknown> {
  /** The producer's id (UNIQ_KEY), or offsetMsgId when the producer set none. */
  readonly msgId: string;
  readonly offsetMsgId: string;
  /** The topic the message was sent to; for a retried message the original topic, not `%RETRY%<group>`. */
  readonly topic: string;
  readonly tags: string | undefined;
  readonly keys: readonly string[];
  readonly properties: Readonly<Record<string, string>>;
  readonly queueId: number;
  readonly brokerName: string;
  readonly queueOffset: number;
  readonly commitLogOffset: number;
  readonly reconsumeTimes: number;
  readonly bornTimestamp: number;
  readonly bornHost: string;
  readonly storeTimestamp: number;
  readonly storeHost: string;
  readonly flag: number;
  readonly body: Buffer;
  /** The body decoded by the codec (JSON by default). A decode error thrown here fails the handler call. */
  readonly payload: T;
  /** RocketMQ 5.4's priority, as the producer set it; undefined when it set none. */
  readonly priority: number | undefined;
  /** RocketMQ 5.5's lite topic the producer sent the message to within its topic; undefined for none. */
  readonly liteTopic: string | undefined;
  /** The queue the message was pulled from (the retry queue for a retried message). */
  readonly messageQueue: MessageQueue;
  /** The record as the transport delivered it. */
  readonly record: MessageRecord;
}
