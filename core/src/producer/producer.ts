import type { MessageRecord } from '../model/message';
import { ConsumedMessage } from '../model/consumed-message';
import {
  TRANSACTION_STATES,
  type LocalTransaction,
  type TransactionSendResult,
  type TransactionState,
} from './transaction';
import { BatchSendError } from '../errors/batch-send.error';
import { withoutNamespace, wrapNamespace } from '../model/namespace';
import { jsonCodec } from '../definition/json.codec';
import { IllegalStateError } from '../errors/state.error';
import { MessageValidationError } from '../errors/validation.error';
import { MessageConst } from '../model/constants';
import type { MessageQueue } from '../model/message-queue';
import type { OutgoingRecord, SendResult } from '../spi/transport.roles';
import { copyProperties } from '../util/copy-properties';
import { toError } from '../util/deferred';
import { compressBody } from './compression';
import { unwrapResult, wrapQueue } from './namespaced';
import { noRouteError } from './no-route';
import { SendPath } from './send-path';
import { buildBatches, perMessage } from './batch-split';
import {
  timerProperty,
  priorityProperty,
  liteTopicProperty,
  isDelayed,
  validateBody,
  validateDelayLevel,
  validateProperties,
  validateTopic,
} from './message-validator';
import type { OutgoingMessage } from '../model/outgoing-message';
import { selectByHash, type MessageQueueSelector } from './queue-selector';
import { UniqKeyGenerator } from './uniq-key';
import { Requests, type RequestOptions } from './requests';
import type { ProducerDeps } from './producer-deps';
import { runEndTransactionHooks, runSendHooks, type EndTransactionInvocation, type SendKind } from '../spi/send-hook';
import { checkedTransactionEnd, localTransactionEnd } from './end-transaction';
import type { Message } from '../model/message';
import type { CreatedByMqkit } from '../util/created-by-mqkit';

export type { ProducerDeps } from './producer-deps';

export type { RequestOptions } from './requests';

/** How one send picks its queue. Without any of these: RocketMQ's default path (round robin, retries). */
export interface SendOptions {
  /** Ordered send: every message with this key goes to one queue (|String.hashCode(key)| mod n, as Java's SelectMessageQueueByHash). */
  readonly shardingKey?: string;
  /** Ordered send with your own choice of queue. */
  readonly selector?: MessageQueueSelector;
  /** Send to exactly this queue. */
  readonly queue?: MessageQueue;
}

/** MessageSysFlag.TRANSACTION_PREPARED_TYPE: a half message. */
const TRANSACTION_PREPARED_TYPE = 0x4;

/**
 * Sends messages with RocketMQ's producer behaviour (docs/rocketmq-producer-model.md): round robin over the topic's
 * writable queues (one counter per topic with a random start), validation before anything is sent, one UNIQ_KEY per
 * message kept across retries, sync retries only on retryable failures and avoiding the broker that just failed, all
 * within one sendMsgTimeout budget; optional latency fault tolerance; ordered sends by key or selector (one attempt, as
 * in RocketMQ); oneway sends; batches; zlib compression of bodies over compressMsgBodyOverHowmuch.
 */
export class Producer {
  private readonly uniq = new UniqKeyGenerator();
  private readonly inflight = new Set<Promise<unknown>>();
  private stopped = false;

  private readonly path: SendPath;
  /** No send hook at all: send and sendOneway skip building an invocation. */
  private readonly unhooked: boolean;
  private readonly requests: Requests;

  private readonly deps: ProducerDeps;

  /**
   * Not for applications: `createProducer` makes a producer, and a consumer app's `producer` option registers one
   * that handlers inject as `Producer`.
   */
  constructor(notForApplications: CreatedByMqkit);
  /** @internal */
  constructor(deps: ProducerDeps);
  constructor(given: ProducerDeps | CreatedByMqkit) {
    // Only the internal signature can be called: no value has the public one's type.
    const deps = given as ProducerDeps;
    this.deps = deps;
    this.path = new SendPath(deps);
    this.unhooked = (deps.hooks ?? []).length === 0;
    this.requests = new Requests(deps, this.path, (message) => this.buildRecord(message));
  }

  get group(): string {
    return this.deps.options.group;
  }

  /** Has a transactionListener: its group heartbeats, so the broker can ask it to check half messages. */
  get transactional(): boolean {
    return this.deps.options.transactionListener !== undefined;
  }

  /**
   * Its group heartbeats: transactional (the broker asks it to check half messages) or it has sent requests (the
   * broker pushes replies only to registered producers).
   */
  get heartbeats(): boolean {
    return this.transactional || this.requests.started;
  }

  /**
   * Sends and resolves with the broker's result. FLUSH_DISK_TIMEOUT, FLUSH_SLAVE_TIMEOUT and SLAVE_NOT_AVAILABLE
   * are results (the message is stored), as in RocketMQ. Rejects with MessageValidationError before sending
   * anything when the message breaks a rule, BrokerError for a broker refusal, TimeoutError past the budget.
   */
  send<T>(message: OutgoingMessage<T>, options: SendOptions = {}): Promise<SendResult> {
    // The hot path: without hooks, nothing is built for them.
    if (this.unhooked) return this.track(() => this.sendOne(message, options));
    return this.track(() =>
      this.hooked(
        'send',
        [message],
        ([m]) => this.sendOne(m!, options),
        (r) => [r],
      ),
    );
  }

  private async sendOne<T>(message: OutgoingMessage<T>, options: SendOptions): Promise<SendResult> {
    const record = this.buildRecord(message);
    const queue = options.queue ? wrapQueue(this.deps.options.namespace, options.queue) : undefined;
    const selector = queue
      ? () => queue
      : (options.selector ?? (options.shardingKey !== undefined ? selectByHash(options.shardingKey) : undefined));
    return unwrapResult(
      this.deps.options.namespace,
      await (selector ? this.path.sendSelected(record, message, selector) : this.path.sendWithRetries(record)),
    );
  }

  /** Runs a producer call through the send hooks (none: the call alone). */
  private hooked<T, R>(
    kind: SendKind,
    messages: readonly OutgoingMessage<T>[],
    send: (messages: readonly OutgoingMessage<T>[]) => Promise<R>,
    results: (outcome: R) => readonly SendResult[],
  ): Promise<R> {
    const { hooks = [], options } = this.deps;
    return runSendHooks(
      hooks,
      { group: withoutNamespace(options.namespace, options.group), namespace: options.namespace, kind, messages },
      send as (messages: readonly OutgoingMessage[]) => Promise<R>,
      results,
    );
  }

  /** Oneway (RocketMQ's sendOneway): one attempt, resolves once written, never reports the broker's answer. */
  sendOneway<T>(message: OutgoingMessage<T>, options: SendOptions = {}): Promise<void> {
    if (this.unhooked) return this.track(() => this.sendOnewayOne(message, options));
    return this.track(() =>
      this.hooked(
        'oneway',
        [message],
        ([m]) => this.sendOnewayOne(m!, options),
        () => [],
      ),
    );
  }

  private async sendOnewayOne<T>(message: OutgoingMessage<T>, options: SendOptions): Promise<void> {
    const record = this.buildRecord(message);
    const queues = await this.deps.routes.publishQueues(record.topic);
    if (queues.length === 0) throw noRouteError(record.topic, true);
    const mq =
      (options.queue && wrapQueue(this.deps.options.namespace, options.queue)) ??
      (options.selector ?? (options.shardingKey !== undefined ? selectByHash(options.shardingKey) : undefined))?.(
        queues,
        message,
      ) ??
      this.path.pick(record.topic, queues, undefined);
    const { sender, options: o } = this.deps;
    if (sender.sendOneway) await sender.sendOneway(mq, record, { producerGroup: o.group });
    else void sender.send(mq, record, { producerGroup: o.group, timeoutMs: o.sendMsgTimeout }).catch(() => undefined);
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
    return this.track(() =>
      this.hooked(
        'batch',
        messages,
        (ms) => this.sendBatches(ms),
        (r) => r,
      ),
    );
  }

  private async sendBatches<T>(messages: readonly OutgoingMessage<T>[]): Promise<SendResult[]> {
    const batches = buildBatches(messages, (m) => this.buildRecord(m, false), this.deps.options.maxMessageSize);
    if (!this.deps.sender.sendBatch) {
      throw new MessageValidationError(
        'batch.unsupported',
        'the transport cannot send batches (MessageSender.sendBatch)',
      );
    }
    const results: SendResult[] = [];
    for (const records of batches) {
      let result: SendResult;
      try {
        result = unwrapResult(this.deps.options.namespace, await this.path.sendWithRetries(records[0]!, records));
      } catch (error) {
        if (results.length === 0) throw error;
        throw new BatchSendError(results, messages.length, error);
      }
      results.push(...perMessage(result, records.length));
    }
    return results;
  }

  /**
   * RocketMQ's sendMessageInTransaction: the message is stored as a half message (invisible to consumers), then
   * `local` runs with the send result, and its outcome commits the message, rolls it back, or (UNKNOW, or a throw)
   * leaves it to the broker's check-backs, answered by the group's `transactionListener`. A half message the broker
   * did not store (not SEND_OK) is rolled back without running `local`, as in Java. Resolves once the outcome was
   * sent to the broker (a failure to send it is a `producer.error` event: the broker's check-back settles it).
   * `S`, the states `local` returns, is inferred as literal types (`const`), so `async () => 'COMMIT_MESSAGE'`
   * type-checks; it needs no explicit argument.
   *
   * @example
   * ```ts
   * const { state } = await producer.sendInTransaction({ topic: 'orders', payload: order }, async () => {
   *   await db.insert(order);
   *   return 'COMMIT_MESSAGE';
   * });
   * ```
   */
  sendInTransaction<T, const S extends TransactionState = TransactionState>(
    message: OutgoingMessage<T>,
    local: LocalTransaction<T, S>,
  ): Promise<TransactionSendResult> {
    return this.track(() =>
      this.hooked(
        'transaction',
        [message],
        ([m]) => this.sendTransactional(m!, local),
        (r) => [r.sendResult],
      ),
    );
  }

  private async sendTransactional<T>(
    message: OutgoingMessage<T>,
    local: LocalTransaction<T>,
  ): Promise<TransactionSendResult> {
    const { sender, options } = this.deps;
    if (!sender.endTransaction)
      throw new MessageValidationError(
        'transaction.unsupported',
        'the transport cannot end transactions (MessageSender.endTransaction)',
      );
    if (!options.transactionListener)
      throw new MessageValidationError(
        'transaction.listener',
        "a transactional send needs the producer option transactionListener (for the broker's check-backs)",
      );
    if (isDelayed(message)) {
      throw new MessageValidationError(
        'transaction.delay',
        'a transactional message cannot be delayed (delayTimeLevel or a timer)',
      );
    }
    // The broker's commit re-stores the half message without the lite dispatch a plain send gets.
    if (message.liteTopic !== undefined)
      throw new MessageValidationError('transaction.liteTopic', 'a transactional message cannot have a liteTopic');
    const built = this.buildRecord(message);
    const properties: Record<string, string> = {
      ...built.properties,
      [MessageConst.TRANSACTION_PREPARED]: 'true',
      [MessageConst.PRODUCER_GROUP]: options.group,
    };
    const record: OutgoingRecord = { ...built, sysFlag: built.sysFlag | TRANSACTION_PREPARED_TYPE, properties };
    const wire = await this.path.sendWithRetries(record);
    const sendResult = unwrapResult(this.deps.options.namespace, wire);
    let state: TransactionState = 'ROLLBACK_MESSAGE';
    if (wire.status === 'SEND_OK') {
      try {
        state = await local(message, sendResult);
        if (!TRANSACTION_STATES.includes(state)) state = 'UNKNOW';
      } catch {
        state = 'UNKNOW';
      }
    }
    this.transactionEnded(localTransactionEnd(options, message, record, wire, state));
    try {
      await sender.endTransaction({
        producerGroup: options.group,
        result: wire,
        state,
        transactionId: record.properties[MessageConst.UNIQ_KEY]!,
      });
    } catch (error) {
      // The local transaction has run: rejecting would invite a second one. As in Java, the outcome is reported and
      // the broker's check-back settles the half message.
      this.deps.events.emit('producer.error', {
        group: options.group,
        topic: message.topic,
        error: toError(error),
        attempt: 1,
      });
    }
    return { sendResult, state };
  }

  /**
   * RocketMQ's request (DefaultMQProducer.request): sends the message with a correlation id, this client's id and
   * the timeout, and resolves with the reply a `reply: true` handler (or any RocketMQ replier) sends back, decoded
   * with the producer's codec. Rejects with RequestTimeoutError when no reply arrives within `timeoutMs` (a reply
   * that comes later is dropped), or with the send's error.
   */
  request<T, R = unknown>(message: OutgoingMessage<T>, options: RequestOptions = {}): Promise<Message<R>> {
    return this.track(() =>
      this.hooked(
        'request',
        [message],
        ([m]) => this.requests.request<T, R>(m!, options),
        () => [],
      ),
    );
  }

  /** PUSH_REPLY_MESSAGE_TO_CLIENT: hands a reply to its request, or drops it (`producer.reply-dropped`). */
  receiveReply(record: MessageRecord): void {
    this.requests.receive(record);
  }

  /** A check-back: the group's listener on the half message; a throw or an unknown answer is UNKNOW. */
  async checkTransaction(record: MessageRecord): Promise<TransactionState> {
    const listener = this.deps.options.transactionListener;
    if (!listener) return 'UNKNOW';
    const mq = { topic: record.topic, brokerName: record.brokerName, queueId: record.queueId };
    const message = new ConsumedMessage(
      record,
      mq,
      this.deps.options.codec ?? jsonCodec,
      0,
      this.deps.options.namespace,
    );
    let state: TransactionState = 'UNKNOW';
    try {
      const answer = await listener.checkLocalTransaction(message);
      if (TRANSACTION_STATES.includes(answer)) state = answer;
    } catch {
      state = 'UNKNOW';
    }
    this.transactionEnded(checkedTransactionEnd(this.deps.options, message, state));
    return state;
  }

  /** The send hooks' endTransaction (message trace's EndTransaction record); a hook's throw is a producer.error. */
  private transactionEnded(invocation: EndTransactionInvocation): void {
    const { hooks = [], events } = this.deps;
    runEndTransactionHooks(hooks, invocation, (error) =>
      events.emit('producer.error', { group: this.group, topic: invocation.message.topic, error, attempt: 0 }),
    );
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
    if (message.body !== undefined)
      body = typeof message.body === 'string' ? Buffer.from(message.body, 'utf8') : message.body;
    else if (message.payload !== undefined) body = (options.codec ?? jsonCodec).encode(message.payload);
    else throw new MessageValidationError('body.null', 'the message body is null: give body or payload');
    validateBody(body, options.maxMessageSize);
    validateProperties(message.properties);
    validateDelayLevel(message.delayTimeLevel);
    const properties = copyProperties(message.properties);
    properties[MessageConst.WAIT] = message.waitStoreMsgOK === false ? 'false' : 'true';
    if (message.tags) properties[MessageConst.TAGS] = message.tags;
    const keys = typeof message.keys === 'string' ? [message.keys] : (message.keys ?? []);
    if (keys.length > 0) properties[MessageConst.KEYS] = keys.join(' ');
    if (message.delayTimeLevel && message.delayTimeLevel > 0)
      properties[MessageConst.DELAY] = String(message.delayTimeLevel);
    const timer = timerProperty(message);
    if (timer) properties[timer[0]] = timer[1];
    const priority = priorityProperty(message);
    if (priority !== undefined) properties[MessageConst.PRIORITY] = priority;
    const lite = liteTopicProperty(message);
    if (lite !== undefined) properties[MessageConst.LITE_TOPIC] = lite;
    properties[MessageConst.UNIQ_KEY] = this.uniq.next();
    // The size rule applies to the body as given; compression happens after it, as in RocketMQ.
    const wire = compress
      ? compressBody(body, options.compressMsgBodyOverHowmuch, options.compressType, options.compressLevel)
      : { body, sysFlag: 0 };
    return {
      topic,
      body: wire.body,
      flag: message.flag ?? 0,
      properties,
      sysFlag: wire.sysFlag,
      bornTimestamp: Date.now(),
    };
  }

  private track<R>(work: () => Promise<R>): Promise<R> {
    if (this.stopped) return Promise.reject(new IllegalStateError(`producer ${this.group} is stopped`));
    const promise = Promise.resolve().then(work);
    this.inflight.add(promise);
    const forget = (): void => void this.inflight.delete(promise);
    promise.then(forget, forget);
    return promise;
  }
}
