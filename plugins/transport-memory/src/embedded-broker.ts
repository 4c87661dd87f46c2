import {
  BrokerError,
  DEFAULT_DELAY_LEVELS_MS,
  Sql92Error,
  SubscriptionRejectedError,
  compileSql92,
  IllegalStateError,
  MessageConst,
  dlqTopicOf,
  isRetryTopic,
  mqKey,
  retryTopicOf,
  type ConsumerRegistration,
  type DirectConsumeResult,
  type EndTransactionRequest,
  type MessageQueue,
  type MessageRecord,
  type OutgoingRecord,
  type PullRequest,
  type PullResult,
  type ReplyRequest,
  type SendResult,
  type SubscriptionData,
} from '@mqkit/core';
import {
  COMPRESSED_FLAG,
  COMPRESSION_TYPE_MASK,
  FORBIDDEN_TOPICS,
  NAME_PATTERN,
  copyProperties,
  getOrCreate,
  inflateBody,
} from '@mqkit/core/internal';
import type { Observable } from 'rxjs';
import { DelayScheduler } from './broker/delay-scheduler';
import { EmbeddedClusterAdmin } from './broker/embedded-cluster-admin';
import { GroupRegistry } from './broker/group-registry';
import { LockTable } from './broker/lock-table';
import { BrokerOutages } from './broker/broker-outages';
import { pullFrom } from './broker/pull-reader';
import {
  DEFAULT_TRANSACTION_SETTINGS,
  HalfMessages,
  type HalfMessage,
  type HalfOutcome,
  type TransactionSettings,
} from './broker/half-messages';
import { StoredMessage } from './broker/stored-message';
import { TimerWheel } from './broker/timer-wheel';
import { TopicStore } from './broker/topic-store';

/** MessageSysFlag: a half message, and a committed one. */
const TRANSACTION_PREPARED_TYPE = 0x4;
const TRANSACTION_COMMIT_TYPE = 0x8;

export interface EmbeddedBrokerOptions {
  /** The cluster's name (brokerClusterName), which names its reply topic `<cluster>_REPLY_TOPIC` (default DefaultCluster). */
  readonly clusterName?: string;
  /** Broker names of the embedded cluster, each a master (default ['broker-a']). */
  readonly brokerNames?: readonly string[];
  /** Queues of a topic created without a count, or on first send (default 8). */
  readonly defaultQueueNums?: number;
  /** Create unknown topics on first send, as RocketMQ's autoCreateTopicEnable (default true). */
  readonly autoCreateTopic?: boolean;
  /** The 18 delay levels in ms (default RocketMQ's 1s 5s 10s 30s 1m ... 2h). */
  readonly delayLevelsMs?: readonly number[];
  /** Multiplies every delay level; tests shrink time with e.g. 0.01 (default 1). */
  readonly delayTimeScale?: number;
  /** Broker-side queue lock lifetime (RocketMQ: 60 s). */
  readonly lockExpiryMs?: number;
  /** A member missing heartbeats this long leaves its groups (RocketMQ: 120 s). */
  readonly channelExpiryMs?: number;
  /** Largest body the broker stores (RocketMQ: 4 MiB). */
  readonly maxMessageSize?: number;
  /** SQL92 subscriptions, as RocketMQ's broker setting of that name (default true here; RocketMQ's is false). */
  readonly enablePropertyFilter?: boolean;
  /** Timer messages, as RocketMQ 5's setting (default true). Their delays follow delayTimeScale. */
  readonly timerWheelEnable?: boolean;
  /** The longest timer delay accepted (RocketMQ: 3 days). */
  readonly timerMaxDelaySec?: number;
  /** Transactions: RocketMQ's transactionTimeOut, transactionCheckInterval (both scaled by delayTimeScale), transactionCheckMax. */
  readonly transaction?: Partial<TransactionSettings>;
}

/** A client connection to the embedded broker: how the broker reaches the client (its "channel"). */
export interface BrokerChannelHandlers {
  /** NOTIFY_CONSUMER_IDS_CHANGED. */
  notifyConsumerIdsChanged(group: string): void;
  /** RESET_CONSUMER_CLIENT_OFFSET. */
  resetOffsets(group: string, offsets: ReadonlyArray<{ mq: MessageQueue; offset: number }>): Promise<void>;
  /** CHECK_TRANSACTION_STATE; undefined when the client has no transactional producer of the group. */
  checkTransaction?(
    producerGroup: string,
    record: MessageRecord,
  ): Promise<'COMMIT_MESSAGE' | 'ROLLBACK_MESSAGE' | 'UNKNOW' | undefined>;
  /** PUSH_REPLY_MESSAGE_TO_CLIENT: a reply to a request of this client. */
  receiveReply?(record: MessageRecord): void;
  /** CONSUME_MESSAGE_DIRECTLY; undefined when the client runs no such group. */
  consumeDirectly?(group: string, record: MessageRecord, brokerName: string): Promise<DirectConsumeResult | undefined>;
  /** GET_CONSUMER_RUNNING_INFO: the client's status of the group (core's BrokerCallbacks.runningInfo). */
  runningInfo?(group: string): unknown;
}

/**
 * An in-process RocketMQ cluster with RocketMQ's semantics: topics with queues on one or more brokers, appends
 * with queue offsets, long-poll pulls held until a message arrives or the hold expires, tag filtering by hash plus
 * exact match, group membership with change notices, consumer offsets, queue locks, the 18 delay levels, the
 * retry topic and the DLQ. Several apps in one process, each with its own client id, form a real group here.
 */
export class EmbeddedBroker {
  private static defaultInstance: EmbeddedBroker | undefined;
  readonly brokerNames: readonly string[];
  readonly clusterName: string;
  readonly defaultQueueNums: number;
  private readonly store: TopicStore;
  private readonly offsets = new Map<string, Map<string, number>>();
  private readonly channels = new Map<string, BrokerChannelHandlers>();
  private readonly groups: GroupRegistry;
  private readonly locks: LockTable;
  private readonly delays: DelayScheduler;
  private readonly timers: TimerWheel;
  private readonly halves: HalfMessages;
  /** Producer groups by the clients whose heartbeats named them (ProducerManager). */
  private readonly producers = new Map<string, Set<string>>();
  private readonly outages = new BrokerOutages();
  /** The admin reads (consumer progress, topic stats, connections, message lookups) and subscription groups. */
  readonly admin: EmbeddedClusterAdmin;
  private readonly expiryTimer: NodeJS.Timeout;
  private readonly options: Required<
    Omit<EmbeddedBrokerOptions, 'brokerNames' | 'clusterName' | 'delayLevelsMs' | 'delayTimeScale' | 'transaction'>
  >;
  private closed = false;

  /** The process-wide broker `memoryTransport()` uses when given none. */
  static default(): EmbeddedBroker {
    if (!EmbeddedBroker.defaultInstance || EmbeddedBroker.defaultInstance.closed)
      EmbeddedBroker.defaultInstance = new EmbeddedBroker();
    return EmbeddedBroker.defaultInstance;
  }

  constructor(options: EmbeddedBrokerOptions = {}) {
    this.brokerNames = [...(options.brokerNames ?? ['broker-a'])].sort();
    this.clusterName = options.clusterName ?? 'DefaultCluster';
    this.defaultQueueNums = options.defaultQueueNums ?? 8;
    const scale = options.delayTimeScale ?? 1;
    this.options = {
      defaultQueueNums: this.defaultQueueNums,
      autoCreateTopic: options.autoCreateTopic ?? true,
      lockExpiryMs: options.lockExpiryMs ?? 60_000,
      channelExpiryMs: options.channelExpiryMs ?? 120_000,
      maxMessageSize: options.maxMessageSize ?? 4 * 1024 * 1024,
      enablePropertyFilter: options.enablePropertyFilter ?? true,
      timerWheelEnable: options.timerWheelEnable ?? true,
      timerMaxDelaySec: options.timerMaxDelaySec ?? 3 * 24 * 3600,
    };
    this.timers = new TimerWheel(scale);
    const tx = { ...DEFAULT_TRANSACTION_SETTINGS, ...options.transaction };
    this.halves = new HalfMessages(
      {
        ...tx,
        transactionTimeOutMs: tx.transactionTimeOutMs * scale,
        transactionCheckIntervalMs: tx.transactionCheckIntervalMs * scale,
      },
      (half) => this.askProducers(half),
      (half, outcome) => this.endHalf(half, outcome),
    );
    this.delays = new DelayScheduler(
      (options.delayLevelsMs ?? DEFAULT_DELAY_LEVELS_MS).map((ms) => Math.max(1, Math.round(ms * scale))),
    );
    this.groups = new GroupRegistry((group) => this.notifyGroup(group));
    this.locks = new LockTable(this.options.lockExpiryMs);
    this.store = new TopicStore(this.brokerNames);
    this.admin = EmbeddedClusterAdmin.create({
      clusterName: this.clusterName,
      brokerNames: this.brokerNames,
      store: this.store,
      groups: this.groups,
      outages: this.outages,
      offsetsOf: (group) => this.offsets.get(group),
      runningInfo: (clientId, group) => {
        const channel = this.channels.get(clientId);
        return { connected: channel !== undefined, status: channel?.runningInfo?.(group) };
      },
    });
    this.expiryTimer = setInterval(
      () => this.expireChannels(),
      Math.max(20, Math.min(10_000, this.options.channelExpiryMs / 4)),
    );
    this.expiryTimer.unref();
  }

  /** Emits a topic whose route changed (created or grown). */
  get routeChanges$(): Observable<string> {
    return this.store.routeChanges$;
  }

  // ---- admin ---------------------------------------------------------------------------------------------

  /** Creates (or grows) a topic with `queues` queues on every broker, or on the listed ones. */
  createTopic(options: { topic: string; queues?: number; brokers?: readonly string[] }): void {
    this.assertOpen();
    this.store.createTopic(options.topic, options.queues ?? this.defaultQueueNums, options.brokers ?? this.brokerNames);
  }

  topicExists(topic: string): boolean {
    return this.store.has(topic);
  }

  /** Every message stored in a topic (optionally one broker / queue), in offset order per queue. */
  messages(topic: string, brokerName?: string, queueId?: number): StoredMessage[] {
    return this.store.messages(topic, brokerName, queueId);
  }

  /**
   * CONSUME_MESSAGE_DIRECTLY, as the dashboard or `mqadmin queryMsgById -g <group> -d <clientId>` sends it: the
   * client runs the group's handler once on a stored message (one of `messages(topic)`); no offset moves.
   */
  async consumeMessageDirectly(group: string, clientId: string, message: StoredMessage): Promise<DirectConsumeResult> {
    const channel = this.channels.get(clientId);
    if (!channel)
      throw new BrokerError(`The Consumer <${group}> <${clientId}> not online`, {
        responseCode: 1,
        retriable: false,
        brokerName: message.brokerName,
      });
    const result = await channel.consumeDirectly?.(group, message, message.brokerName);
    if (!result)
      throw new BrokerError(`The Consumer Group <${group}> not exist in this consumer`, {
        responseCode: 1,
        retriable: false,
        brokerName: message.brokerName,
      });
    return result;
  }

  /** Messages waiting in the delay levels. */
  get scheduledCount(): number {
    return this.delays.pending();
  }

  // ---- routes --------------------------------------------------------------------------------------------

  /** The topic's queues on brokers that are up. */
  subscribeQueues(topic: string): MessageQueue[] {
    return this.outages.routed(this.store.queues(topic));
  }

  // ---- failures (tests) ----------------------------------------------------------------------------------

  /**
   * Crashes one broker of the cluster (a SIGKILL): it leaves the routes, every request to it fails with
   * SERVICE_NOT_AVAILABLE, its held long polls end, and its queue locks are gone. With `offsets: 'lost'` the
   * consumer offsets it held are gone too, as for a broker killed before it wrote them to disk (RocketMQ writes
   * them every 5 s).
   */
  crashBroker(brokerName: string, options: { offsets?: 'kept' | 'lost' } = {}): void {
    if (!this.brokerNames.includes(brokerName)) throw new IllegalStateError(`no broker named ${brokerName}`);
    this.outages.crash(brokerName);
    this.locks.forgetBroker(brokerName);
    if (options.offsets === 'lost') {
      for (const table of this.offsets.values())
        for (const key of [...table.keys()]) if (key.split('\u0000')[1] === brokerName) table.delete(key);
    }
    for (const topic of this.store.topicsOn(brokerName)) this.store.announce(topic);
  }

  /** Brings a crashed broker back: routed again, its messages intact. */
  restartBroker(brokerName: string): void {
    if (!this.outages.isDown(brokerName)) return;
    this.outages.restart(brokerName);
    for (const topic of this.store.topicsOn(brokerName)) this.store.announce(topic);
  }

  /** Writable queues, brokers in name order; an unknown topic is created first when autoCreateTopic is on. */
  publishQueues(topic: string): MessageQueue[] {
    if (!this.store.has(topic) && this.options.autoCreateTopic && !isRetryTopic(topic)) this.createTopic({ topic });
    return this.subscribeQueues(topic);
  }

  // ---- channels and groups -------------------------------------------------------------------------------

  /** Opens a client connection. A client id can be connected once at a time (duplicates would share queues). */
  connect(clientId: string, handlers: BrokerChannelHandlers): void {
    this.assertOpen();
    if (this.channels.has(clientId)) {
      throw new IllegalStateError(
        `client id ${clientId} is already connected to the embedded broker; give each app its own instanceName`,
      );
    }
    this.channels.set(clientId, handlers);
  }

  /** Closes a connection: the client leaves every group, as when a TCP connection drops. */
  disconnect(clientId: string): void {
    if (!this.channels.delete(clientId)) return;
    this.groups.disconnect(clientId);
    for (const clients of this.producers.values()) clients.delete(clientId);
  }

  heartbeat(
    clientId: string,
    registrations: readonly ConsumerRegistration[],
    producerGroups: readonly string[] = [],
  ): void {
    this.assertChannel(clientId);
    for (const group of producerGroups) {
      getOrCreate(this.producers, group, () => new Set()).add(clientId);
    }
    for (const registration of registrations) {
      // RocketMQ creates %RETRY%<group> (1 queue) on heartbeat.
      if (registration.messageModel === 'CLUSTERING') {
        const retry = retryTopicOf(registration.group);
        if (!this.store.has(retry)) this.createTopic({ topic: retry, queues: 1 });
      }
      this.groups.heartbeat(clientId, registration);
    }
  }

  unregister(clientId: string, group: string): void {
    this.groups.unregister(clientId, group);
  }

  consumerIds(group: string): string[] {
    return this.groups.consumerIds(group);
  }

  // ---- store ---------------------------------------------------------------------------------------------

  /** SEND_BATCH_MESSAGE: every record to one queue, in order; msgId joins the UNIQ_KEYs, queueOffset is the first's. */
  sendBatch(mq: MessageQueue, records: readonly OutgoingRecord[], bornHost = '127.0.0.1:0'): SendResult {
    const results = records.map((r) => this.send(mq, r, bornHost));
    return {
      ...results[0]!,
      msgId: results.map((r) => r.msgId).join(','),
      offsetMsgId: results.map((r) => r.offsetMsgId).join(','),
    };
  }

  send(mq: MessageQueue, incoming: OutgoingRecord, bornHost = '127.0.0.1:0'): SendResult {
    this.assertOpen();
    // The consumer's decoder inflates compressed bodies and clears the flag (RocketMQ's MessageDecoder); doing it
    // once at store time gives every consumer the same view without inflating per pull.
    const inflated =
      incoming.sysFlag & COMPRESSED_FLAG
        ? {
            ...incoming,
            body: inflateBody(incoming.body, incoming.sysFlag).body,
            sysFlag: incoming.sysFlag & ~(COMPRESSED_FLAG | COMPRESSION_TYPE_MASK),
          }
        : incoming;
    // SendMessageProcessor adds the cluster to every message it stores: a replier names the reply topic by it.
    const properties = copyProperties(inflated.properties);
    properties[MessageConst.CLUSTER] = this.clusterName;
    const record: OutgoingRecord = { ...inflated, properties };
    const { topic } = record;
    if (!NAME_PATTERN.test(topic))
      throw new BrokerError(`topic ${topic} is invalid`, { responseCode: 29, retriable: false });
    if (FORBIDDEN_TOPICS.has(topic))
      throw new BrokerError(`sending to topic ${topic} is forbidden`, { responseCode: 16, retriable: false });
    if (record.body.length > this.options.maxMessageSize)
      throw new BrokerError(`message body ${record.body.length} bytes exceeds ${this.options.maxMessageSize}`, {
        responseCode: 13,
        retriable: false,
      });
    if (!this.store.has(topic)) {
      if (!this.options.autoCreateTopic)
        throw new BrokerError(`topic[${topic}] not exist`, { responseCode: 17, brokerName: mq.brokerName });
      this.createTopic({ topic });
    }
    this.outages.assertUp(mq.brokerName);
    const queue = this.store.queue(mq);
    if (!queue)
      throw new BrokerError(`queueId ${mq.queueId} of ${topic} on ${mq.brokerName} does not exist`, {
        responseCode: 29,
        retriable: false,
        brokerName: mq.brokerName,
      });
    const delay = Number(record.properties[MessageConst.DELAY] ?? 0);
    const uniq = record.properties[MessageConst.UNIQ_KEY] ?? '';
    if (delay > 0) {
      // Delayed: parked in the delay level, then appended to the real queue (RocketMQ's SCHEDULE_TOPIC_XXXX).
      const { [MessageConst.DELAY]: _ignored, ...properties } = record.properties;
      this.delays.schedule(delay, () =>
        this.store.append(mq, { ...record, properties }, bornHost, record.reconsumeTimes ?? 0),
      );
      return { status: 'SEND_OK', msgId: uniq, offsetMsgId: '', messageQueue: mq, queueOffset: -1 };
    }
    if (record.sysFlag & TRANSACTION_PREPARED_TYPE) {
      // A half message: kept apart, invisible to consumers, until its transaction ends.
      const producerGroup = record.properties[MessageConst.PRODUCER_GROUP] ?? '';
      this.halves.add({ id: uniq, producerGroup, mq, record, bornHost, storedAt: Date.now() });
      return { status: 'SEND_OK', msgId: uniq, offsetMsgId: '', messageQueue: mq, queueOffset: -1 };
    }
    const due = TimerWheel.deliverAt(record.properties);
    if (due !== undefined) {
      const now = Date.now();
      // SendMessageProcessor's answers for WHEEL_TIMER_NOT_ENABLE and WHEEL_TIMER_MSG_ILLEGAL.
      if (!this.options.timerWheelEnable)
        throw new BrokerError(
          'accurate timer message is not enabled, timerWheelEnable is false; broker setting: timerWheelEnable=true is needed for timer messages',
          { responseCode: 1, retriable: false, brokerName: mq.brokerName },
        );
      if (!Number.isFinite(due) || due - now > this.options.timerMaxDelaySec * 1000) {
        throw new BrokerError(
          `timer message illegal, the delay time should not be bigger than the max delay ${this.options.timerMaxDelaySec * 1000}ms; or if set del msg, the delay time should be bigger than the current time; broker setting: timerMaxDelaySec bounds the delay of a timer message`,
          { responseCode: 13, retriable: false, brokerName: mq.brokerName },
        );
      }
      if (due > now) {
        this.timers.schedule(
          due,
          () => void (this.closed || this.store.append(mq, record, bornHost, record.reconsumeTimes ?? 0)),
          now,
        );
        return { status: 'SEND_OK', msgId: uniq, offsetMsgId: '', messageQueue: mq, queueOffset: -1 };
      }
    }
    const stored = this.store.append(mq, record, bornHost, record.reconsumeTimes ?? 0);
    return {
      status: 'SEND_OK',
      msgId: uniq || stored.offsetMsgId,
      offsetMsgId: stored.offsetMsgId,
      messageQueue: mq,
      queueOffset: stored.queueOffset,
    };
  }

  /**
   * SEND_REPLY_MESSAGE: pushes a reply to the requester named by its REPLY_TO_CLIENT, which must be connected and
   * registered as a producer by a heartbeat (ProducerManager.findChannel); else RocketMQ's SYSTEM_ERROR answer.
   */
  sendReply(request: ReplyRequest, bornHost = '127.0.0.1:0'): void {
    this.assertOpen();
    this.outages.assertUp(request.brokerName);
    const { record } = request;
    const requester = record.properties[MessageConst.REPLY_TO_CLIENT];
    const fail = (remark: string): never => {
      throw new BrokerError(`reply to ${record.topic} on ${request.brokerName} failed: code 1 (${remark})`, {
        responseCode: 1,
        retriable: false,
        brokerName: request.brokerName,
      });
    };
    if (requester === undefined) fail('reply message properties[REPLY_TO_CLIENT] is null');
    const channel = this.channels.get(requester!);
    const registered = [...this.producers.values()].some((clients) => clients.has(requester!));
    if (!channel?.receiveReply || !registered) fail(`push reply message fail, channel of <${requester}> not found.`);
    const body = inflateBody(record.body, record.sysFlag).body;
    const now = Date.now();
    channel!.receiveReply!(
      new StoredMessage(
        record.topic,
        request.brokerName,
        0,
        -1,
        -1,
        body,
        { ...record.properties, PUSH_REPLY_TIME: String(now) },
        record.flag,
        record.sysFlag & ~0x701,
        record.bornTimestamp,
        bornHost,
        now,
        this.store.storeHost(request.brokerName),
        0,
      ),
    );
  }

  /** END_TRANSACTION: commits or rolls back an open half message (UNKNOW leaves it to the checks). */
  endTransaction(request: EndTransactionRequest): void {
    this.halves.finish(request.transactionId, request.producerGroup, request.state);
  }

  /** Half messages of transactions not ended yet. */
  get openTransactions(): number {
    return this.halves.size;
  }

  /** A long-poll pull with RocketMQ's statuses; held until a message arrives, the hold expires, or abort. */
  pull(request: PullRequest, signal?: AbortSignal): Promise<PullResult> {
    if (this.closed) return Promise.reject(new BrokerError('embedded broker is closed', { responseCode: 14 }));
    const { mq, group } = request;
    if (this.outages.isDown(mq.brokerName))
      return Promise.reject(
        new BrokerError(`broker ${mq.brokerName} is down (crashed)`, { responseCode: 14, brokerName: mq.brokerName }),
      );
    const queue = this.store.queue(mq);
    if (!queue) {
      return Promise.reject(
        new BrokerError(`topic[${mq.topic}] queue ${mq.queueId} on ${mq.brokerName} not exist`, {
          responseCode: 17,
          brokerName: mq.brokerName,
        }),
      );
    }
    if (request.subscription.expressionType !== 'TAG' && !this.options.enablePropertyFilter) {
      return Promise.reject(
        new BrokerError(
          `The broker does not support consumer to filter message by ${request.subscription.expressionType}`,
          { responseCode: 1, retriable: false, brokerName: mq.brokerName },
        ),
      );
    }
    if (request.commitOffset !== undefined && request.commitOffset >= 0)
      this.commitConsumerOffset(group, mq, request.commitOffset);
    return pullFrom(queue, request, signal, this.outages.aliveSignal(mq.brokerName));
  }

  /** CHECK_CLIENT_CONFIG: an SQL92 subscription needs enablePropertyFilter and an expression that compiles. */
  checkSubscription(subscription: SubscriptionData): void {
    if (subscription.expressionType === 'TAG') return;
    const brokerName = this.brokerNames[0]!;
    if (!this.options.enablePropertyFilter) {
      throw new SubscriptionRejectedError({
        brokerName,
        setting: 'enablePropertyFilter',
        remark: `The broker does not support consumer to filter message by ${subscription.expressionType}`,
      });
    }
    try {
      compileSql92(subscription.expression);
    } catch (error) {
      if (error instanceof Sql92Error) throw new SubscriptionRejectedError({ brokerName, remark: error.message });
      throw error;
    }
  }

  // ---- offsets -------------------------------------------------------------------------------------------

  /** The group's committed offset, or -1 (mqkit asks with setZeroIfNotFound=false semantics). */
  queryConsumerOffset(group: string, mq: MessageQueue): number {
    this.outages.assertUp(mq.brokerName);
    return this.offsets.get(group)?.get(mqKey(mq)) ?? -1;
  }

  commitConsumerOffset(group: string, mq: MessageQueue, offset: number): void {
    this.outages.assertUp(mq.brokerName);
    getOrCreate(this.offsets, group, () => new Map()).set(mqKey(mq), offset);
  }

  minOffset(mq: MessageQueue): number {
    this.outages.assertUp(mq.brokerName);
    return this.store.requireQueue(mq).minOffset;
  }

  maxOffset(mq: MessageQueue): number {
    this.outages.assertUp(mq.brokerName);
    return this.store.requireQueue(mq).maxOffset;
  }

  searchOffset(mq: MessageQueue, timestamp: number): number {
    this.outages.assertUp(mq.brokerName);
    return this.store.requireQueue(mq).searchOffset(timestamp);
  }

  /**
   * Admin reset (RocketMQ's INVOKE_BROKER_TO_RESET_OFFSET): moves the group's offset of every queue of the topic
   * to the first message stored at or after `timestamp`, and pushes the new offsets to every connected member.
   */
  async resetOffsetByTimestamp(
    group: string,
    topic: string,
    timestamp: number,
  ): Promise<Array<{ mq: MessageQueue; offset: number }>> {
    const entries = this.subscribeQueues(topic).map((mq) => ({ mq, offset: this.searchOffset(mq, timestamp) }));
    for (const { mq, offset } of entries) this.commitConsumerOffset(group, mq, offset);
    const members = this.groups.consumerIds(group);
    await Promise.all(members.map((clientId) => this.channels.get(clientId)?.resetOffsets(group, entries)));
    return entries;
  }

  // ---- retry and locks -----------------------------------------------------------------------------------

  /**
   * CONSUMER_SEND_MSG_BACK, as RocketMQ 5.3.3's broker does it (a test compares the copies with a real broker's):
   * past maxReconsumeTimes (or delayLevel < 0) the message goes to `%DLQ%<group>`; otherwise it is re-delivered on
   * `%RETRY%<group>` after its delay level (0: 3 + reconsumeTimes). Either copy has reconsumeTimes + 1, the original
   * topic in RETRY_TOPIC, the first stored id in ORIGIN_MESSAGE_ID, and WAIT false; a DLQ copy has DELAY 0, and a
   * retry copy the REAL_TOPIC and REAL_QID its hop through the schedule topic leaves (so a DLQ copy of a retried
   * message has them too).
   */
  sendBack(request: { group: string; message: MessageRecord; delayLevel: number; maxReconsumeTimes: number }): void {
    this.assertOpen();
    const { group, message } = request;
    const brokerName = this.brokerNames.includes(message.brokerName) ? message.brokerName : this.brokerNames[0]!;
    this.outages.assertUp(brokerName);
    const properties = copyProperties(message.properties);
    properties[MessageConst.RETRY_TOPIC] ??= message.topic;
    properties[MessageConst.ORIGIN_MESSAGE_ID] ??= message.offsetMsgId;
    properties[MessageConst.WAIT] = 'false';
    const base = {
      body: message.body,
      flag: message.flag,
      sysFlag: message.sysFlag,
      bornTimestamp: message.bornTimestamp,
    };
    const reconsumeTimes = message.reconsumeTimes + 1;
    if (message.reconsumeTimes >= request.maxReconsumeTimes || request.delayLevel < 0) {
      const dlq = dlqTopicOf(group);
      this.store.ensureOneQueue(dlq, brokerName);
      // The broker stores the DLQ copy at once, with its delay level set to 0.
      properties[MessageConst.DELAY] = '0';
      this.store.append(
        { topic: dlq, brokerName, queueId: 0 },
        { ...base, topic: dlq, properties },
        message.bornHost,
        reconsumeTimes,
      );
      return;
    }
    const retry = retryTopicOf(group);
    this.store.ensureOneQueue(retry, brokerName);
    const level = request.delayLevel === 0 ? 3 + message.reconsumeTimes : request.delayLevel;
    const mq = { topic: retry, brokerName, queueId: 0 };
    // Parked in SCHEDULE_TOPIC_XXXX, the message keeps where it is going in REAL_TOPIC and REAL_QID; the delivery
    // drops the delay level and keeps those two.
    delete properties[MessageConst.DELAY];
    properties[MessageConst.REAL_TOPIC] = retry;
    properties[MessageConst.REAL_QID] = String(mq.queueId);
    this.delays.schedule(level, () =>
      this.store.append(mq, { ...base, topic: retry, properties }, message.bornHost, reconsumeTimes),
    );
  }

  /** Locks what it can on the brokers that are up (a batch to a crashed broker grants nothing, as in RocketMQ). */
  lock(group: string, clientId: string, mqs: readonly MessageQueue[]): MessageQueue[] {
    return this.locks.lock(group, clientId, this.outages.routed([...mqs]));
  }

  unlock(group: string, clientId: string, mqs: readonly MessageQueue[]): void {
    for (const mq of mqs) this.outages.assertUp(mq.brokerName);
    this.locks.unlock(group, clientId, mqs);
  }

  lockHolder(group: string, mq: MessageQueue): string | undefined {
    return this.locks.holder(group, mq);
  }

  /** Stops timers; pending long polls answer NO_NEW_MSG as their holds expire. */
  close(): void {
    this.closed = true;
    clearInterval(this.expiryTimer);
    this.delays.close();
    this.timers.close();
    this.halves.close();
    if (EmbeddedBroker.defaultInstance === this) EmbeddedBroker.defaultInstance = undefined;
  }

  // ---- internals -----------------------------------------------------------------------------------------

  private notifyGroup(group: string): void {
    // The broker notifies asynchronously, over the network in RocketMQ.
    setImmediate(() => {
      for (const clientId of this.groups.consumerIds(group))
        this.channels.get(clientId)?.notifyConsumerIdsChanged(group);
    });
  }

  /** CHECK_TRANSACTION_STATE to the live producers of the half message's group, until one answers. */
  private async askProducers(half: HalfMessage): Promise<HalfOutcome | undefined> {
    const record = new StoredMessage(
      half.mq.topic,
      half.mq.brokerName,
      half.mq.queueId,
      0,
      0,
      half.record.body,
      half.record.properties,
      half.record.flag,
      half.record.sysFlag,
      half.record.bornTimestamp,
      half.bornHost,
      half.storedAt,
      '127.0.0.1:10911',
      0,
    );
    for (const clientId of this.producers.get(half.producerGroup) ?? []) {
      const outcome = await this.channels.get(clientId)?.checkTransaction?.(half.producerGroup, record);
      if (outcome) return outcome;
    }
    return undefined;
  }

  /** EndTransactionProcessor: a commit stores the message in its queue, without the half-message marks. */
  private endHalf(half: HalfMessage, outcome: 'COMMIT_MESSAGE' | 'ROLLBACK_MESSAGE' | 'DISCARD'): void {
    if (this.closed || outcome === 'ROLLBACK_MESSAGE') return;
    const { [MessageConst.TRANSACTION_PREPARED]: _prepared, ...properties } = half.record.properties;
    if (outcome === 'COMMIT_MESSAGE') {
      this.store.append(
        half.mq,
        {
          ...half.record,
          properties,
          sysFlag: (half.record.sysFlag & ~TRANSACTION_PREPARED_TYPE) | TRANSACTION_COMMIT_TYPE,
        },
        half.bornHost,
        0,
      );
      return;
    }
    // Past transactionCheckMax: kept where no consumer reads (RocketMQ's TRANS_CHECK_MAX_TIME_TOPIC).
    const topic = 'TRANS_CHECK_MAX_TIME_TOPIC';
    if (!this.store.has(topic)) this.store.createTopic(topic, 1, [half.mq.brokerName]);
    this.store.append({ topic, brokerName: half.mq.brokerName, queueId: 0 }, half.record, half.bornHost, 0);
  }

  private expireChannels(): void {
    this.groups.expire(this.options.channelExpiryMs);
  }

  private assertOpen(): void {
    if (this.closed) throw new BrokerError('embedded broker is closed', { responseCode: 14 });
  }

  private assertChannel(clientId: string): void {
    this.assertOpen();
    if (!this.channels.has(clientId))
      throw new BrokerError(`client ${clientId} is not connected`, { responseCode: 14 });
  }
}
