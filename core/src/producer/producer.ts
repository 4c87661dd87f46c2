import { randomInt } from 'node:crypto';
import type { MessageRecord } from '../model/message';
import { ConsumedMessage } from '../runtime/consumed-message';
import { TRANSACTION_STATES, type LocalTransaction, type TransactionSendResult, type TransactionState } from './transaction';
import { BatchSendError } from '../errors/batch-send.error';
import { withoutNamespace, wrapNamespace } from '../model/namespace';
import { jsonCodec } from '../definition/json.codec';
import { BrokerError } from '../errors/broker.error';
import { IllegalStateError } from '../errors/state.error';
import { MessageValidationError } from '../errors/validation.error';
import { TimeoutError } from '../errors/timeout.error';
import type { EventBus } from '../events/event-bus';
import { MessageConst, isRetryTopic } from '../model/constants';
import type { MessageQueue } from '../model/message-queue';
import type { MessageSender, OutgoingRecord, RouteResolver, SendResult } from '../spi/transport.roles';
import { toError } from '../util/deferred';
import { compressBody } from './compression';
import { LatencyFaultTolerance } from './latency-fault-tolerance';
import { timerProperty, validateBody, validateDelayLevel, validateProperties, validateTopic } from './message-validator';
import type { OutgoingMessage } from './outgoing-message';
import type { ResolvedProducerOptions } from './producer-options';
import { selectByHash, type MessageQueueSelector } from './queue-selector';
import { UniqKeyGenerator } from './uniq-key';

interface TopicCursor {
  readonly queues: readonly MessageQueue[];
  /** RocketMQ's ThreadLocalIndex: random start, +1 per candidate examined, masked to 31 bits. */
  counter: number;
}

export interface ProducerDeps {
  readonly options: ResolvedProducerOptions;
  readonly routes: RouteResolver;
  readonly sender: MessageSender;
  readonly events: EventBus;
}

/** How one send picks its queue. Without any of these: RocketMQ's default path (round robin, retries). */
export interface SendOptions {
  /** Ordered send: every message with this key goes to one queue (|String.hashCode(key)| mod n, as Java's SelectMessageQueueByHash). */
  readonly shardingKey?: string;
  /** Ordered send with your own choice of queue. */
  readonly selector?: MessageQueueSelector;
  /** Send to exactly this queue. */
  readonly queue?: MessageQueue;
}

/** RocketMQ's batch limits: a batch refuses delayed and retry-topic messages and mixes no topics. */
const BATCH_RECORD_OVERHEAD = 22;
/** MessageSysFlag.TRANSACTION_PREPARED_TYPE: a half message. */
const TRANSACTION_PREPARED_TYPE = 0x4;

/**
 * Sends messages with RocketMQ's producer behaviour (producer-semantics.md): round robin over the topic's writable
 * queues (one counter per topic with a random start), validation before anything is sent, one UNIQ_KEY per message
 * kept across retries, sync retries only on retryable failures and avoiding the broker that just failed, all within
 * one sendMsgTimeout budget; optional latency fault tolerance; ordered sends by key or selector (one attempt, as in
 * RocketMQ); oneway sends; batches; zlib compression of bodies over compressMsgBodyOverHowmuch.
 */
export class Producer {
  private readonly cursors = new Map<string, TopicCursor>();
  private readonly uniq = new UniqKeyGenerator();
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly faults = new LatencyFaultTolerance();
  private stopped = false;

  constructor(private readonly deps: ProducerDeps) {}

  get group(): string {
    return this.deps.options.group;
  }

  /** Has a transactionListener: its group heartbeats, so the broker can ask it to check half messages. */
  get transactional(): boolean {
    return this.deps.options.transactionListener !== undefined;
  }

  /**
   * Sends and resolves with the broker's result. FLUSH_DISK_TIMEOUT, FLUSH_SLAVE_TIMEOUT and SLAVE_NOT_AVAILABLE
   * are results (the message is stored), as in RocketMQ. Rejects with MessageValidationError before sending
   * anything when the message breaks a rule, BrokerError for a broker refusal, TimeoutError past the budget.
   */
  send<T>(message: OutgoingMessage<T>, options: SendOptions = {}): Promise<SendResult> {
    return this.track(async () => {
      const record = this.buildRecord(message);
      const queue = options.queue ? this.wrapQueue(options.queue) : undefined;
      const selector = queue ? () => queue : options.selector ?? (options.shardingKey !== undefined ? selectByHash(options.shardingKey) : undefined);
      return this.unwrapResult(await (selector ? this.sendSelected(record, message, selector) : this.sendWithRetries(record)));
    });
  }

  /** A queue the application names, as the broker knows it (its topic in the namespace). */
  private wrapQueue(mq: MessageQueue): MessageQueue {
    const { namespace } = this.deps.options;
    return namespace ? { ...mq, topic: wrapNamespace(namespace, mq.topic) } : mq;
  }

  /** A result as the application sees it: RocketMQ resets its queue's topic without the namespace. */
  private unwrapResult(result: SendResult): SendResult {
    const { namespace } = this.deps.options;
    return namespace ? { ...result, messageQueue: { ...result.messageQueue, topic: withoutNamespace(namespace, result.messageQueue.topic) } } : result;
  }

  /** Oneway (RocketMQ's sendOneway): one attempt, resolves once written, never reports the broker's answer. */
  sendOneway<T>(message: OutgoingMessage<T>, options: SendOptions = {}): Promise<void> {
    return this.track(async () => {
      const record = this.buildRecord(message);
      const queues = await this.deps.routes.publishQueues(record.topic);
      if (queues.length === 0) throw new BrokerError(`No route info of this topic: ${record.topic}`, { responseCode: 17 });
      const mq = (options.queue && this.wrapQueue(options.queue)) ?? (options.selector ?? (options.shardingKey !== undefined ? selectByHash(options.shardingKey) : undefined))?.(queues, message) ?? this.pick(record.topic, queues, undefined);
      const { sender, options: o } = this.deps;
      if (sender.sendOneway) await sender.sendOneway(mq, record, { producerGroup: o.group });
      else void sender.send(mq, record, { producerGroup: o.group, timeoutMs: o.sendMsgTimeout }).catch(() => undefined);
    });
  }

  /**
   * A batch (RocketMQ's send(Collection)): one topic, no delay levels, no retry topics, one WAIT value; each message
   * gets its own UNIQ_KEY; never compressed. A list larger than maxMessageSize once encoded is split, in order,
   * into batches that fit (RocketMQ's ListSplitter rule, with the exact encoded size), sent one after another.
   * Resolves with one result per message, in the list's order. A single message that cannot fit is refused
   * (`batch.size`) before anything is sent; a batch that fails after others were stored rejects with
   * BatchSendError, whose `results` are the messages already stored.
   */
  sendBatch<T>(messages: readonly OutgoingMessage<T>[]): Promise<SendResult[]> {
    return this.track(async () => {
      const batches = this.buildBatches(messages);
      if (!this.deps.sender.sendBatch) {
        throw new MessageValidationError('batch.unsupported', 'the transport cannot send batches (MessageSender.sendBatch)');
      }
      const results: SendResult[] = [];
      for (const records of batches) {
        let result: SendResult;
        try {
          result = this.unwrapResult(await this.sendWithRetries(records[0]!, records));
        } catch (error) {
          if (results.length === 0) throw error;
          throw new BatchSendError(results, messages.length, error);
        }
        results.push(...perMessage(result, records.length));
      }
      return results;
    });
  }

  /**
   * RocketMQ's sendMessageInTransaction: the message is stored as a half message (invisible to consumers), then
   * `local` runs with the send result, and its outcome commits the message, rolls it back, or (UNKNOW, or a throw)
   * leaves it to the broker's check-backs, answered by the group's `transactionListener`. A half message the broker
   * did not store (not SEND_OK) is rolled back without running `local`, as in Java. Resolves once the outcome was
   * sent to the broker (a failure to send it is a `producer.error` event: the broker's check-back settles it).
   */
  sendInTransaction<T>(message: OutgoingMessage<T>, local: LocalTransaction<T>): Promise<TransactionSendResult> {
    return this.track(async () => {
      const { sender, options } = this.deps;
      if (!sender.endTransaction) throw new MessageValidationError('transaction.unsupported', 'the transport cannot end transactions (MessageSender.endTransaction)');
      if (!options.transactionListener) throw new MessageValidationError('transaction.listener', 'a transactional send needs the producer option transactionListener (for the broker\'s check-backs)');
      if (message.delayTimeLevel || message.deliverTimeMs !== undefined || message.delayTimeMs !== undefined || message.delayTimeSec !== undefined) {
        throw new MessageValidationError('transaction.delay', 'a transactional message cannot be delayed (delayTimeLevel or a timer)');
      }
      const built = this.buildRecord(message);
      const properties: Record<string, string> = { ...built.properties, [MessageConst.TRANSACTION_PREPARED]: 'true', [MessageConst.PRODUCER_GROUP]: options.group };
      const record: OutgoingRecord = { ...built, sysFlag: built.sysFlag | TRANSACTION_PREPARED_TYPE, properties };
      const wire = await this.sendWithRetries(record);
      const sendResult = this.unwrapResult(wire);
      let state: TransactionState = 'ROLLBACK_MESSAGE';
      if (wire.status === 'SEND_OK') {
        try {
          state = await local(message, sendResult);
          if (!TRANSACTION_STATES.includes(state)) state = 'UNKNOW';
        } catch {
          state = 'UNKNOW';
        }
      }
      try {
        await sender.endTransaction({ producerGroup: options.group, result: wire, state, transactionId: record.properties[MessageConst.UNIQ_KEY]! });
      } catch (error) {
        // The local transaction has run: rejecting would invite a second one. As in Java, the outcome is reported and
        // the broker's check-back settles the half message.
        this.deps.events.emit('producer.error', { group: options.group, topic: message.topic, error: toError(error), attempt: 1 });
      }
      return { sendResult, state };
    });
  }

  /** A check-back: the group's listener on the half message; a throw or an unknown answer is UNKNOW. */
  async checkTransaction(record: MessageRecord): Promise<TransactionState> {
    const listener = this.deps.options.transactionListener;
    if (!listener) return 'UNKNOW';
    const mq = { topic: record.topic, brokerName: record.brokerName, queueId: record.queueId };
    const message = new ConsumedMessage(record, mq, this.deps.options.codec ?? jsonCodec, 0, this.deps.options.namespace);
    try {
      const state = await listener.checkLocalTransaction(message);
      return TRANSACTION_STATES.includes(state) ? state : 'UNKNOW';
    } catch {
      return 'UNKNOW';
    }
  }

  /** Resolves after every send in flight has settled; later sends are refused. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.inflight]);
  }

  /** Validates and encodes a message into what goes on the wire (throws MessageValidationError). */
  buildRecord<T>(message: OutgoingMessage<T>, compress = true): OutgoingRecord {
    const { options } = this.deps;
    const topic = wrapNamespace(options.namespace, message.topic);
    validateTopic(topic);
    let body: Buffer;
    if (message.body !== undefined) body = typeof message.body === 'string' ? Buffer.from(message.body, 'utf8') : message.body;
    else if (message.payload !== undefined) body = (options.codec ?? jsonCodec).encode(message.payload);
    else throw new MessageValidationError('body.null', 'the message body is null: give body or payload');
    validateBody(body, options.maxMessageSize);
    validateProperties(message.properties);
    validateDelayLevel(message.delayTimeLevel);
    const properties: Record<string, string> = { ...message.properties };
    properties[MessageConst.WAIT] = message.waitStoreMsgOK === false ? 'false' : 'true';
    if (message.tags) properties[MessageConst.TAGS] = message.tags;
    const keys = typeof message.keys === 'string' ? [message.keys] : (message.keys ?? []);
    if (keys.length > 0) properties[MessageConst.KEYS] = keys.join(' ');
    if (message.delayTimeLevel && message.delayTimeLevel > 0) properties[MessageConst.DELAY] = String(message.delayTimeLevel);
    const timer = timerProperty(message);
    if (timer) properties[timer[0]] = timer[1];
    properties[MessageConst.UNIQ_KEY] = this.uniq.next();
    // The size rule applies to the body as given; compression happens after it, as in RocketMQ.
    const wire = compress ? compressBody(body, options.compressMsgBodyOverHowmuch) : { body, sysFlag: 0 };
    return { topic, body: wire.body, flag: message.flag ?? 0, properties, sysFlag: wire.sysFlag, bornTimestamp: Date.now() };
  }

  /** Validates every message as one batch would, then splits them into batches that fit maxMessageSize. */
  private buildBatches<T>(messages: readonly OutgoingMessage<T>[]): OutgoingRecord[][] {
    if (messages.length === 0) throw new MessageValidationError('batch.empty', 'a batch needs at least one message');
    const records = messages.map((m) => {
      if (m.delayTimeLevel && m.delayTimeLevel > 0) throw new MessageValidationError('batch.delay', 'TimeDelayLevel is not supported for batching');
      // The broker's batch path never schedules timers: they would be delivered at once.
      if (m.deliverTimeMs !== undefined || m.delayTimeMs !== undefined || m.delayTimeSec !== undefined) throw new MessageValidationError('batch.timer', 'timer messages (deliverTimeMs, delayTimeMs, delayTimeSec) are not supported for batching');
      if (isRetryTopic(m.topic)) throw new MessageValidationError('batch.retry-topic', 'Retry Group is not supported for batching');
      // RocketMQ never compresses batches.
      return this.buildRecord(m, false);
    });
    const first = records[0]!;
    const limit = this.deps.options.maxMessageSize;
    const batches: OutgoingRecord[][] = [];
    let current: OutgoingRecord[] = [];
    let size = 0;
    for (const r of records) {
      if (r.topic !== first.topic) throw new MessageValidationError('batch.topic', 'The topic of the messages in one batch should be the same');
      if (r.properties[MessageConst.WAIT] !== first.properties[MessageConst.WAIT]) throw new MessageValidationError('batch.wait', 'The waitStoreMsgOK of the messages in one batch should the same');
      const encoded = BATCH_RECORD_OVERHEAD + r.body.length + propertiesLength(r.properties);
      if (encoded > limit) throw new MessageValidationError('batch.size', `a message of the batch is ${encoded} bytes encoded, over the max message size ${limit}`);
      if (size + encoded > limit) {
        batches.push(current);
        current = [];
        size = 0;
      }
      current.push(r);
      size += encoded;
    }
    batches.push(current);
    return batches;
  }

  private track<R>(work: () => Promise<R>): Promise<R> {
    if (this.stopped) return Promise.reject(new IllegalStateError(`producer ${this.group} is stopped`));
    const promise = Promise.resolve().then(work);
    this.inflight.add(promise);
    const forget = (): void => void this.inflight.delete(promise);
    promise.then(forget, forget);
    return promise;
  }

  /** RocketMQ's sendDefaultImpl (sync): 1 + retryTimesWhenSendFailed attempts within one timeout budget. */
  private async sendWithRetries(record: OutgoingRecord, batch?: OutgoingRecord[]): Promise<SendResult> {
    const { options, sender, events } = this.deps;
    const started = Date.now();
    const attempts = 1 + options.retryTimesWhenSendFailed;
    let lastBroker: string | undefined;
    let lastError: Error | undefined;
    let lastResult: SendResult | undefined;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const queues = await this.deps.routes.publishQueues(record.topic);
      if (queues.length === 0) throw new BrokerError(`No route info of this topic: ${record.topic}`, { responseCode: 17, retriable: true });
      const mq = this.pick(record.topic, queues, lastBroker, attempt > 1);
      const elapsed = Date.now() - started;
      if (elapsed >= options.sendMsgTimeout) {
        throw new TimeoutError(`sendDefaultImpl call timeout: ${record.topic} after ${elapsed} ms and ${attempt - 1} attempt(s)`, { cause: lastError });
      }
      const t0 = Date.now();
      try {
        const budget = { producerGroup: options.group, timeoutMs: options.sendMsgTimeout - elapsed };
        const result = batch ? await sender.sendBatch!(mq, batch.map((r) => ({ ...r, bornTimestamp: Date.now() })), budget) : await sender.send(mq, { ...record, bornTimestamp: Date.now() }, budget);
        this.faults.update(mq.brokerName, Date.now() - t0, false, true);
        if (events.has('producer.send')) events.emit('producer.send', { group: options.group, topic: record.topic, mq, msgId: result.msgId, attempts: attempt });
        if (result.status === 'SEND_OK' || !options.retryAnotherBrokerWhenNotStoreOK) return result;
        lastResult = result;
        lastBroker = mq.brokerName;
      } catch (error) {
        lastError = toError(error);
        lastBroker = mq.brokerName;
        const brokerRefusal = error instanceof BrokerError;
        this.faults.update(mq.brokerName, Date.now() - t0, true, !brokerRefusal);
        events.emit('producer.error', { group: options.group, topic: record.topic, error: lastError, attempt });
        // RocketMQ retries transport failures and the retryable broker codes, nothing else.
        const retriable = brokerRefusal ? error.retriable : !(error instanceof MessageValidationError);
        if (!retriable) {
          if (lastResult) return lastResult;
          throw lastError;
        }
        this.deps.routes.invalidate?.(record.topic);
      }
    }
    if (lastResult) return lastResult;
    throw lastError ?? new Error(`send to ${record.topic} failed`);
  }

  /** Ordered and explicit-queue sends: one attempt to the chosen queue, no retry, no broker avoidance. */
  private async sendSelected<T>(record: OutgoingRecord, message: OutgoingMessage<T>, selector: MessageQueueSelector): Promise<SendResult> {
    const { options, sender, events } = this.deps;
    const queues = await this.deps.routes.publishQueues(record.topic);
    if (queues.length === 0) throw new BrokerError(`No route info of this topic: ${record.topic}`, { responseCode: 17, retriable: true });
    const mq = selector([...queues], message as OutgoingMessage<unknown>);
    if (!mq) throw new MessageValidationError('selector.null', 'select message queue return null');
    if (mq.topic !== record.topic) throw new MessageValidationError('selector.topic', `the selected queue's topic ${mq.topic} is not the message's topic ${record.topic}`);
    try {
      const result = await sender.send(mq, record, { producerGroup: options.group, timeoutMs: options.sendMsgTimeout });
      if (events.has('producer.send')) events.emit('producer.send', { group: options.group, topic: record.topic, mq, msgId: result.msgId, attempts: 1 });
      return result;
    } catch (error) {
      events.emit('producer.error', { group: options.group, topic: record.topic, error: toError(error), attempt: 1 });
      throw error;
    }
  }

  /**
   * RocketMQ's selectOneMessageQueue. Without fault tolerance: round robin, a retry skips the broker that just
   * failed. With it (5.1.4+): a retry restarts the counter at random, then the first queue whose broker is available
   * and not the last one, else one that is reachable, else any.
   */
  private pick(topic: string, queues: readonly MessageQueue[], lastBroker: string | undefined, retry = false): MessageQueue {
    let cursor = this.cursors.get(topic);
    if (!cursor || !sameQueues(cursor.queues, queues)) {
      cursor = { queues, counter: randomInt(0, 2 ** 31 - 1) };
      this.cursors.set(topic, cursor);
    }
    const n = queues.length;
    if (this.deps.options.sendLatencyFaultEnable) {
      if (retry) cursor.counter = randomInt(0, 2 ** 31 - 1);
      for (let i = 0; i < n; i++) {
        const mq = queues[this.next(cursor) % n]!;
        if (this.faults.isAvailable(mq.brokerName) && mq.brokerName !== lastBroker) return mq;
      }
      for (let i = 0; i < n; i++) {
        const mq = queues[this.next(cursor) % n]!;
        if (this.faults.isReachable(mq.brokerName) && mq.brokerName !== lastBroker) return mq;
      }
      return queues[this.next(cursor) % n]!;
    }
    if (lastBroker !== undefined) {
      for (let i = 0; i < n; i++) {
        const mq = queues[this.next(cursor) % n]!;
        if (mq.brokerName !== lastBroker) return mq;
      }
    }
    return queues[this.next(cursor) % n]!;
  }

  private next(cursor: TopicCursor): number {
    cursor.counter = (cursor.counter + 1) & 0x7fffffff;
    return cursor.counter;
  }
}

function sameQueues(a: readonly MessageQueue[], b: readonly MessageQueue[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]!.brokerName !== b[i]!.brokerName || a[i]!.queueId !== b[i]!.queueId) return false;
  return true;
}

/** A batch's result, one per message: RocketMQ joins the ids with commas and gives the first queue offset. */
function perMessage(result: SendResult, count: number): SendResult[] {
  const ids = result.msgId.split(',');
  const offsetIds = result.offsetMsgId.split(',');
  return Array.from({ length: count }, (_, i) => ({
    ...result,
    msgId: ids[i] ?? '',
    offsetMsgId: offsetIds[i] ?? '',
    queueOffset: result.queueOffset >= 0 ? result.queueOffset + i : result.queueOffset,
  }));
}

function propertiesLength(properties: Readonly<Record<string, string>>): number {
  let n = 0;
  for (const k in properties) n += Buffer.byteLength(k) + Buffer.byteLength(properties[k]!) + 2;
  return n;
}
