import type { Message, MessageRecord } from '../model/message';
import { IllegalStateError } from '../errors/state.error';
import { withoutNamespace } from '../model/namespace';
import type { MessageQueue } from '../model/message-queue';
import type { OutgoingMessage } from '../model/outgoing-message';
import { runSendHooks, type SendKind } from '../spi/send-hook';
import type { OutgoingRecord, SendResult } from '../spi/transport.roles';
import type { CreatedByMqkit } from '../util/created-by-mqkit';
import { unwrapResult, wrapQueue } from './namespaced';
import { noRouteError } from './no-route';
import type { ProducerDeps } from './producer-deps';
import { selectByHash, type MessageQueueSelector } from './queue-selector';
import { RecordBuilder } from './record-builder';
import { Requests, type RequestOptions } from './requests';
import { sendBatches } from './send-batches';
import { SendPath } from './send-path';
import type { LocalTransaction, TransactionSendResult, TransactionState } from './transaction';
import { Transactions } from './transactions';

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

/**
 * Sends messages with RocketMQ's producer behaviour (docs/rocketmq-producer-model.md): round robin over the topic's
 * writable queues (one counter per topic with a random start), validation before anything is sent, one UNIQ_KEY per
 * message kept across retries, sync retries only on retryable failures and avoiding the broker that just failed, all
 * within one sendMsgTimeout budget; optional latency fault tolerance; ordered sends by key or selector (one attempt, as
 * in RocketMQ); oneway sends; batches; zlib compression of bodies over compressMsgBodyOverHowmuch.
 */
export class Producer {
  private readonly inflight = new Set<Promise<unknown>>();
  private stopped = false;

  private readonly path: SendPath;
  /** No send hook at all: send and sendOneway skip building an invocation. */
  private readonly unhooked: boolean;
  private readonly records: RecordBuilder;
  private readonly requests: Requests;
  private readonly transactions: Transactions;

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
    this.records = new RecordBuilder(deps.options);
    this.requests = new Requests(deps, this.path, (message) => this.records.build(message));
    this.transactions = new Transactions(deps, this.path, this.records);
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
    const record = this.records.build(message);
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
    const record = this.records.build(message);
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
        (ms) => sendBatches(ms, this.deps, this.records, this.path),
        (r) => r,
      ),
    );
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
        ([m]) => this.transactions.send(m!, local),
        (r) => [r.sendResult],
      ),
    );
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
  checkTransaction(record: MessageRecord): Promise<TransactionState> {
    return this.transactions.check(record);
  }

  /** Resolves after every send in flight has settled; later sends are refused. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.inflight]);
  }

  /** Validates and encodes a message into what goes on the wire (throws MessageValidationError). */
  buildRecord<T>(message: OutgoingMessage<T>, compress = true): OutgoingRecord {
    return this.records.build(message, compress);
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
