import type { Observable } from 'rxjs';
import type { ConsumeFromWhere, MessageModel } from '../model/constants';
import type { MessageRecord } from '../model/message';
import type { MessageQueue } from '../model/message-queue';
import type { PullResult } from '../model/pull-result';
import type { SubscriptionData } from '../model/subscription';

/*
 * The broker transport, split by capability (docs/architecture.md#transport-roles). A transport's connect() returns the
 * roles it supports as one record (transport.plugin.ts); core checks at start that what a consumer's options need is
 * there and fails naming the missing role otherwise. A member exists here only if core calls it.
 */

/** Topic routes: which queues a consumer reads and a producer writes. May be cached by the transport. */
export interface RouteResolver {
  /** Readable queues of a topic (read queue ids of readable brokers); empty when the topic is unknown. */
  subscribeQueues(topic: string): Promise<readonly MessageQueue[]>;
  /** Writable queues of brokers that have a master, in RocketMQ's order (brokers sorted by name). */
  publishQueues(topic: string): Promise<readonly MessageQueue[]>;
  /** Drops any cached route of the topic, so the next call asks again (after a send or pull failure). */
  invalidate?(topic: string): void;
  /** Emits a topic whose route changed (created, queues added, broker gone); wakes the rebalance. */
  readonly changes$?: Observable<string>;
}

/** What a consumer group member tells the broker about itself (RocketMQ's ConsumerData in a heartbeat). */
export interface ConsumerRegistration {
  readonly group: string;
  readonly messageModel: MessageModel;
  readonly consumeFromWhere: ConsumeFromWhere;
  readonly subscriptions: readonly SubscriptionData[];
  /** CONSUME_PASSIVELY (push consumers, the default) or CONSUME_ACTIVELY (pull consumers). */
  readonly consumeType?: 'CONSUME_PASSIVELY' | 'CONSUME_ACTIVELY';
}

/** Group membership: heartbeats, the consumer ids of a group, and the broker's membership-change notices. */
export interface GroupMembership {
  /**
   * Registers (or refreshes) this client's consumer groups with every broker serving their topics, and its
   * producer groups (transactional producers: the broker asks them to check half messages) with every broker.
   */
  heartbeat(registrations: readonly ConsumerRegistration[], producerGroups?: readonly string[]): Promise<void>;
  /** Removes this client from a group (UNREGISTER_CLIENT); the broker notifies the other members. */
  unregister(group: string): Promise<void>;
  /** Client ids of the group's members, as seen by a broker that serves the topic. */
  consumerIds(group: string, topic: string): Promise<readonly string[]>;
  /** Emits a group name whenever a broker says its membership changed (NOTIFY_CONSUMER_IDS_CHANGED). */
  readonly changes$: Observable<string>;
}

/**
 * CHECK_CLIENT_CONFIG: whether the brokers serving a topic can run a subscription's filter (an SQL92 filter needs
 * the broker setting `enablePropertyFilter=true`). Core asks at start for every subscription that is not TAG.
 */
export interface SubscriptionCheck {
  /**
   * Resolves when every broker serving the topic accepts the subscription (or the topic has no route yet);
   * rejects with SubscriptionRejectedError naming the broker and, when a setting is off, the setting.
   */
  check(group: string, subscription: SubscriptionData): Promise<void>;
}

/** One long-poll pull (PULL_MESSAGE). */
export interface PullRequest {
  readonly group: string;
  readonly mq: MessageQueue;
  readonly offset: number;
  readonly maxMsgs: number;
  /** Upper bound on the bytes of bodies returned; the broker still returns at least one message. */
  readonly maxBytes: number;
  readonly subscription: SubscriptionData;
  /** How long the broker may hold the request when there is nothing new. */
  readonly suspendMs: number;
  /** Client-side timeout of the request. */
  readonly timeoutMs: number;
  /** The consume offset to commit with this pull (RocketMQ's piggy-backed commit); omitted when none. */
  readonly commitOffset?: number;
}

export interface MessagePuller {
  /** Resolves with the pull result; rejects with BrokerError or TimeoutError; an aborted signal ends a held pull. */
  pull(request: PullRequest, signal: AbortSignal): Promise<PullResult>;
}

/** Consumer offsets kept by the broker, and the queue offset lookups consumeFromWhere needs. */
export interface BrokerOffsets {
  /** The group's committed offset for the queue, or -1 when the broker has none. */
  queryConsumerOffset(group: string, mq: MessageQueue): Promise<number>;
  /** Resolves once the broker acknowledged the commit. */
  commitConsumerOffset(group: string, mq: MessageQueue, offset: number): Promise<void>;
  /** The first offset still stored (a pull consumer's seekToBegin). */
  minOffset(mq: MessageQueue): Promise<number>;
  /** The next offset to be written (the message count when min is 0). */
  maxOffset(mq: MessageQueue): Promise<number>;
  /** The first offset whose message was stored at or after `timestamp` (RocketMQ's lower boundary). */
  searchOffset(mq: MessageQueue, timestamp: number): Promise<number>;
}

/** CONSUMER_SEND_MSG_BACK: the broker re-delivers a failed message later on `%RETRY%<group>`, or dead-letters it. */
export interface RetryChannel {
  sendBack(request: {
    readonly group: string;
    readonly message: MessageRecord;
    /** -1: straight to the DLQ; 0: the broker picks 3 + reconsumeTimes; > 0: that level. */
    readonly delayLevel: number;
    readonly maxReconsumeTimes: number;
    readonly timeoutMs: number;
  }): Promise<void>;
}

/** LOCK_BATCH_MQ / UNLOCK_BATCH_MQ: broker-side queue locks owned by a client id. */
export interface QueueLocks {
  /** Locks what it can and resolves with the queues now held by this client. */
  lock(group: string, mqs: readonly MessageQueue[]): Promise<readonly MessageQueue[]>;
  /** Resolves once the broker answered (a handoff needs the unlock confirmed; RocketMQ sends it oneway). */
  unlock(group: string, mqs: readonly MessageQueue[]): Promise<void>;
}

/** A message on its way to the broker. */
export interface OutgoingRecord {
  readonly topic: string;
  readonly body: Buffer;
  readonly flag: number;
  /** Includes UNIQ_KEY, TAGS, KEYS, DELAY, WAIT as RocketMQ's producer sets them. */
  readonly properties: Readonly<Record<string, string>>;
  readonly sysFlag: number;
  readonly bornTimestamp: number;
  readonly reconsumeTimes?: number;
  readonly maxReconsumeTimes?: number;
}

/**
 * How the broker stored a sent message. Anything but SEND_OK means it is stored on the master but a flush or a
 * replica did not confirm in time (the broker's `flushDiskType` / `brokerRole` settings decide which can occur).
 */
export type SendStatus = 'SEND_OK' | 'FLUSH_DISK_TIMEOUT' | 'FLUSH_SLAVE_TIMEOUT' | 'SLAVE_NOT_AVAILABLE';

/** What the broker answered to a send (Java's SendResult; its `sendStatus` is `status` here). */
export interface SendResult {
  /** How the message was stored. */
  readonly status: SendStatus;
  /** The producer's UNIQ_KEY. */
  readonly msgId: string;
  /** The broker's id of the stored message: its store host and commit-log offset. */
  readonly offsetMsgId: string;
  /** The queue the message was stored in. */
  readonly messageQueue: MessageQueue;
  /** The message's offset in that queue. */
  readonly queueOffset: number;
}

export interface MessageSender {
  send(
    mq: MessageQueue,
    record: OutgoingRecord,
    options: { producerGroup: string; timeoutMs: number },
  ): Promise<SendResult>;
  /** Fire and forget (RocketMQ's oneway send): resolves once written, never reports the broker's answer. */
  sendOneway?(mq: MessageQueue, record: OutgoingRecord, options: { producerGroup: string }): Promise<void>;
  /**
   * END_TRANSACTION (oneway) to the master of the broker that stored a half message: commit, roll back, or leave it
   * for the broker's check-back (UNKNOW).
   */
  endTransaction?(request: EndTransactionRequest): Promise<void>;
  /**
   * SEND_REPLY_MESSAGE_V2: a reply (topic `<cluster>_REPLY_TOPIC`) to the master of `brokerName`, the broker that
   * stored the request; it pushes the reply to the requester's connection. Resolves once that broker accepted it;
   * rejects with BrokerError when it could not (the requester is not connected to it, for one).
   */
  sendReply?(request: ReplyRequest): Promise<void>;
  /** SEND_BATCH_MESSAGE: the records as one batch to one queue; msgId of the result joins their UNIQ_KEYs. */
  sendBatch?(
    mq: MessageQueue,
    records: readonly OutgoingRecord[],
    options: { producerGroup: string; timeoutMs: number },
  ): Promise<SendResult>;
}

/** A reply on its way back to a requester. */
export interface ReplyRequest {
  /** The broker that stored the request (the requester heartbeats it). */
  readonly brokerName: string;
  readonly record: OutgoingRecord;
  readonly producerGroup: string;
  readonly timeoutMs: number;
}

/** What ends a transaction: the half message's send result and the local outcome. */
export interface EndTransactionRequest {
  readonly producerGroup: string;
  /** The half message's result, as the transport returned it (topic as the broker knows it). */
  readonly result: SendResult;
  readonly state: 'COMMIT_MESSAGE' | 'ROLLBACK_MESSAGE' | 'UNKNOW';
  /** The transaction id: the half message's UNIQ_KEY. */
  readonly transactionId: string;
}

/** Admin reads and subscription groups: the ClusterAdmin role has a file of its own. */
export type { ClusterAdmin } from './cluster-admin.role';

/** Topic administration: create a topic with a number of queues on every master, then wait for its route. */
export interface TopicAdmin {
  createTopic(options: { topic: string; queues: number; brokers?: readonly string[] }): Promise<void>;
}

/**
 * RocketMQ's INVOKE_BROKER_TO_RESET_OFFSET: the broker moves a group's offsets of a topic to the first message
 * stored at or after `timestamp` and pushes them to every connected member (RESET_CONSUMER_CLIENT_OFFSET).
 */
export interface OffsetAdmin {
  resetOffsetByTimestamp(group: string, topic: string, timestamp: number): Promise<void>;
}

/** Requests the broker sends to a client (RESET_CONSUMER_CLIENT_OFFSET, GET_CONSUMER_RUNNING_INFO). */
export interface BrokerCallbacks {
  /** Moves the group's offsets of these queues (RESET_CONSUMER_CLIENT_OFFSET); the member re-pulls from them. */
  resetOffsets(
    group: string,
    offsets: ReadonlyArray<{ readonly mq: MessageQueue; readonly offset: number }>,
  ): Promise<void>;
  runningInfo(group: string): unknown;
  /**
   * CONSUME_MESSAGE_DIRECTLY (the dashboard's and `mqadmin queryMsgById -g -d` resend): runs the group's handler
   * once on the record, through the hooks; no offset moves and nothing is retried. Undefined when this client
   * runs no such group.
   */
  consumeDirectly(group: string, record: MessageRecord, brokerName: string): Promise<DirectConsumeResult | undefined>;
  /**
   * CHECK_TRANSACTION_STATE: the outcome of a half message this client's producer group sent; undefined when this
   * client has no transactional producer of that group (the transport then answers nothing, as Java does).
   */
  checkTransaction?(
    producerGroup: string,
    record: MessageRecord,
  ): Promise<'COMMIT_MESSAGE' | 'ROLLBACK_MESSAGE' | 'UNKNOW' | undefined>;
  /**
   * PUSH_REPLY_MESSAGE_TO_CLIENT: a reply to a request this client sent (`producer.request`); the record's topic is
   * the reply topic and its properties carry the CORRELATION_ID.
   */
  receiveReply?(record: MessageRecord): void;
}

/** What one direct consume did (RocketMQ's ConsumeMessageDirectlyResult). */
export interface DirectConsumeResult {
  /** The group consumes ORDERLY. */
  readonly order: boolean;
  /** CR_SUCCESS (the handler returned), CR_LATER (it asked for a retry or a suspend), CR_THROW_EXCEPTION. */
  readonly result: 'CR_SUCCESS' | 'CR_LATER' | 'CR_THROW_EXCEPTION';
  /** The error, for CR_THROW_EXCEPTION. */
  readonly remark?: string;
  readonly spentTimeMs: number;
}
