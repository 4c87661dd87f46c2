import { AllocateMessageQueueAveragely } from '../allocation/averagely.strategy';
import { StrategyRegistry } from '../allocation/strategy-registry';
import { checkSubscription } from '../app/check-subscriptions';
import { ClientHost } from '../app/client-host';
import { Heartbeats } from '../app/heartbeats';
import { jsonCodec } from '../definition/json.codec';
import { ConfigurationError } from '../errors/configuration.error';
import { IllegalStateError } from '../errors/state.error';
import type { Message } from '../model/message';
import { compareMessageQueues, mqKey, mqLabel, type MessageQueue } from '../model/message-queue';
import { withoutNamespace, wrapNamespace } from '../model/namespace';
import { parseSubscription, sqlSubscription, type SubscriptionData } from '../model/subscription';
import { brokerOffsetStore } from '../offsets/broker-offset-store';
import { ByteBudget } from '../runtime/byte-budget';
import { ConsumeProgress } from '../runtime/consume-progress';
import type { ConsumedMessage } from '../runtime/consumed-message';
import { ConsumeStats, countConsumed } from '../runtime/consume-stats';
import { reportError, type GroupContext } from '../runtime/group-context';
import { HandlerInvoker } from '../runtime/handler-invoker';
import { every } from '../runtime/periodic';
import type { ProcessQueue } from '../runtime/process-queue';
import { ProcessQueueTable } from '../runtime/process-queue-table';
import { RebalanceService } from '../runtime/rebalance.service';
import type { ConsumerStatus } from '../runtime/runtime-status';
import { computeStartOffset } from '../runtime/start-offset';
import type { AllocationStrategy } from '../spi/allocation-strategy';
import type { OffsetStore, OffsetStoreProvider } from '../spi/offset-store';
import { Tokens } from '../spi/tokens';
import type { BrokerCallbacks, ConsumerRegistration } from '../spi/transport.roles';
import { childController, parentController } from '../util/abort';
import { PollBuffer } from './poll-buffer';
import { resolvePullConsumerOptions, type PullConsumerOptions, type ResolvedPullConsumerOptions } from './pull-consumer-options';

type Mode = 'none' | 'subscribe' | 'assign';

/**
 * RocketMQ's DefaultLitePullConsumer on mqkit's engine: the same pull loops, flow control, process queues,
 * progress owner, offset stores and rebalance as push consumers, with `poll()` where a push consumer calls a
 * handler. Subscribe to topics (queues allocated among the group's members, and rebalanced) or assign queues.
 * What poll returned counts as consumed: it is stored every autoCommitIntervalMs, or at `commit()` with autoCommit
 * off; a queue released or closed stores what was committed, so nothing uncommitted is ever stored.
 *
 * @example
 * ```ts
 * const consumer = await createPullConsumer({ transport, group: 'replay', autoCommit: false });
 * await consumer.assign(await consumer.queuesOf('orders'));
 * for await (const messages of consumer) {
 *   await save(messages);
 *   await consumer.commit();
 * }
 * ```
 */
export class PullConsumer implements AsyncIterable<Message[]> {
  readonly group: string;
  private readonly host: ClientHost;
  private readonly controller = parentController();
  private readonly runtimeController: AbortController;
  private readonly ctx: GroupContext;
  private readonly buffer: PollBuffer;
  private readonly subscriptions = new Map<string, SubscriptionData>();
  private readonly assigned = new Map<string, MessageQueue>();
  private readonly paused = new Set<string>();
  private readonly pauseWaiters = new Map<string, Array<() => void>>();
  private mode: Mode = 'none';
  private store!: OffsetStore;
  private progress!: ConsumeProgress;
  private queues!: ProcessQueueTable;
  private rebalance: RebalanceService | undefined;
  private strategy!: AllocationStrategy;
  private heartbeats!: Heartbeats;
  private committing: Promise<void> = Promise.resolve();
  private closing: Promise<void> | undefined;
  private state: 'new' | 'running' | 'closed' = 'new';

  constructor(
    private readonly options: PullConsumerOptions,
    private readonly resolved: ResolvedPullConsumerOptions,
  ) {
    this.group = resolved.group.group;
    this.host = new ClientHost('createPullConsumer', options);
    this.runtimeController = childController(this.controller.signal);
    this.buffer = new PollBuffer(options.codec ?? jsonCodec, resolved.namespace);
    this.ctx = {
      group: this.group,
      clientId: this.host.clientId,
      options: resolved.group,
      profile: this.host.profile,
      events: this.host.events,
      budget: new ByteBudget(resolved.maxCachedBytes),
      stats: new ConsumeStats(),
      namespace: resolved.namespace,
      signal: this.runtimeController.signal,
    };
  }

  get clientId(): string {
    return this.host.clientId;
  }

  /** @internal createPullConsumer's second step. */
  async start(): Promise<void> {
    const { host, ctx, resolved } = this;
    try {
      const transport = await host.connect(this.options.transport, this.callbacks());
      await host.register(this.options.plugins ?? []);
      const registry = new StrategyRegistry();
      registry.register(new AllocateMessageQueueAveragely());
      if (host.container.isRegistered(Tokens.AllocationStrategy, true)) for (const s of host.container.resolveAll(Tokens.AllocationStrategy)) registry.register(s);
      this.strategy = registry.resolve(resolved.group.strategy, 'createPullConsumer');
      const provider: OffsetStoreProvider =
        this.options.offsetStore ?? (host.container.isRegistered(Tokens.OffsetStoreProvider, true) ? host.container.resolve(Tokens.OffsetStoreProvider) : brokerOffsetStore());
      if (!provider.models.includes(resolved.group.messageModel)) {
        throw new ConfigurationError({ source: 'createPullConsumer', option: 'offsetStore', value: provider.name, allowed: `an offset store that serves ${resolved.group.messageModel}` });
      }
      this.store = provider.create({ group: this.group, clientId: host.clientId, instanceName: this.options.instanceName, messageModel: resolved.group.messageModel, container: host.container, events: host.events, transport });
      await this.store.load();
      // Java's lite pull consumer never piggy-backs commits on pulls: commits are the application's.
      this.progress = new ConsumeProgress(ctx, this.store, false, !resolved.autoCommit);
      this.queues = new ProcessQueueTable(
        ctx,
        {
          subscriptions: this.subscriptions,
          progress: this.progress,
          consume: this.buffer,
          invoker: new HandlerInvoker(ctx, new Map(), []),
          puller: transport.puller,
          locks: undefined,
          startOffset: (mq) => computeStartOffset(mq, ctx.options, this.store, transport.offsets, this.progress.remembered(mq)),
        },
        {
          whenRunning: (pq) => this.whenResumed(pq),
          requestRebalance: () => this.rebalance?.request(),
          onAssignmentChanged: () => this.heartbeats.now(),
        },
      );
      this.heartbeats = new Heartbeats(transport.membership, () => [this.registration()], (error) => reportError(ctx, 'heartbeat', error), this.controller.signal);
      this.heartbeats.start(host.profile.heartbeatIntervalMs);
      if (resolved.autoCommit) void every(resolved.autoCommitIntervalMs, () => this.queues.persistOwned(), ctx.signal, (error) => reportError(ctx, 'auto-commit', error));
      void every(ConsumeStats.SAMPLE_MS, () => ctx.stats.sample(), ctx.signal, (error) => reportError(ctx, 'stats', error));
      this.state = 'running';
    } catch (error) {
      await this.close().catch(() => undefined);
      throw error;
    }
  }

  /**
   * Subscribes a topic (TAG `tags` or an SQL92 `sql`, not both): its queues are allocated among the group's members
   * by the strategy and rebalanced as members come and go. Not with `assign`.
   */
  async subscribe(name: string, options: { readonly tags?: string; readonly sql?: string } = {}): Promise<void> {
    this.useMode('subscribe');
    const topic = this.wrap(name);
    if (options.tags !== undefined && options.sql !== undefined) {
      throw new ConfigurationError({ source: 'subscribe', option: 'sql', value: options.sql, allowed: 'no sql when tags is given: a subscription filters by TAG or by SQL92, not both' });
    }
    const subscription = options.sql !== undefined ? sqlSubscription(topic, options.sql) : parseSubscription(topic, options.tags);
    const issue = await checkSubscription(this.host, this.group, subscription, 'subscribe');
    if (issue) throw new ConfigurationError(issue);
    this.subscriptions.set(topic, subscription);
    this.heartbeats.now();
    if (!this.rebalance) {
      const transport = this.host.roles;
      this.rebalance = new RebalanceService(
        this.ctx,
        {
          topics: () => [...this.subscriptions.keys()],
          applyAllocation: (t, allocated, mqAll) => this.queues.applyAllocation(t, allocated, mqAll),
          beforeAllocation: (t, mqAll, routeChanged) => this.queues.beforeAllocation(t, mqAll, routeChanged),
          dropUnsubscribed: (topics) => this.queues.dropUnsubscribed(topics),
          queuesChanged: () => undefined,
        },
        { strategy: this.strategy, routes: transport.routes, membership: transport.membership },
      );
      this.rebalance.start();
    }
    this.rebalance.request();
  }

  /** Stops consuming a subscribed topic (its queues are released, what was committed stored). */
  async unsubscribe(topic: string): Promise<void> {
    this.subscriptions.delete(this.wrap(topic));
    this.heartbeats.now();
    this.rebalance?.request();
  }

  /**
   * Consumes exactly these queues (no rebalance), replacing any earlier assignment: new ones start at their
   * stored offset (else consumeFromWhere), dropped ones are released. Not with `subscribe`.
   */
  async assign(queues: readonly MessageQueue[]): Promise<void> {
    this.useMode('assign');
    const topics = new Set([...this.assigned.values()].map((mq) => mq.topic));
    this.assigned.clear();
    for (const given of queues) {
      const mq = this.wire(given);
      this.assigned.set(mqKey(mq), mq);
      topics.add(mq.topic);
      if (!this.subscriptions.has(mq.topic)) this.subscriptions.set(mq.topic, parseSubscription(mq.topic, '*'));
    }
    for (const topic of [...this.subscriptions.keys()]) if (![...this.assigned.values()].some((mq) => mq.topic === topic)) this.subscriptions.delete(topic);
    this.heartbeats.now();
    await Promise.all([...topics].map((topic) => this.queues.applyAllocation(topic, [...this.assigned.values()].filter((mq) => mq.topic === topic))));
  }

  /** The queues of a topic, from its route (to pick some for `assign`). */
  async queuesOf(topic: string): Promise<MessageQueue[]> {
    this.assertRunning();
    return [...(await this.host.roles.routes.subscribeQueues(this.wrap(topic)))].sort(compareMessageQueues).map((mq) => this.plain(mq));
  }

  /**
   * The next messages: up to pullBatchSize, each queue's in offset order; empty when none arrived within the
   * timeout (default pollTimeoutMs). Messages of paused queues wait.
   */
  async poll(options: { readonly timeoutMs?: number } = {}): Promise<Message[]> {
    this.assertRunning();
    const timeoutMs = options.timeoutMs ?? this.resolved.pollTimeoutMs;
    const deadline = AbortSignal.any([AbortSignal.timeout(Math.max(1, timeoutMs)), this.controller.signal]);
    for (;;) {
      const taken = this.buffer.take(this.resolved.group.pullBatchSize, (pq) => this.paused.has(pq.key));
      if (taken.size > 0) return this.consumed(taken);
      if (deadline.aborted || this.state !== 'running' || timeoutMs === 0) return [];
      await this.buffer.whenSubmitted(deadline);
    }
  }

  /** Taken messages leave their queues: flow control frees them, and progress counts them consumed. */
  private consumed(taken: Map<ProcessQueue, ConsumedMessage[]>): Message[] {
    const out: Message[] = [];
    for (const [pq, messages] of taken) {
      this.ctx.budget.release(pq.removeItems(messages, 0, messages.length));
      this.progress.advance(pq);
      countConsumed(this.ctx.stats, pq, messages.length, 0, -1, Date.now());
      for (const m of messages) out.push(m);
    }
    return out;
  }

  /**
   * Moves an assigned queue to `offset` (between the queue's min and max offsets, max included): what was cached
   * is dropped and the next poll starts there. A seek after `assign` returned always wins over the stored offset.
   */
  async seek(given: MessageQueue, offset: number): Promise<void> {
    const mq = this.requireAssigned(given);
    const offsets = this.host.roles.offsets;
    const [min, max] = await Promise.all([offsets.minOffset(mq), offsets.maxOffset(mq)]);
    if (!Number.isInteger(offset) || offset < min || offset > max) {
      throw new ConfigurationError({ source: 'seek', option: 'offset', value: offset, allowed: `an offset of ${mqLabel(mq)} in [${min}, ${max}] (Seek offset illegal)` });
    }
    this.queues.seek(mq, offset);
  }

  async seekToBegin(given: MessageQueue): Promise<void> {
    const mq = this.requireAssigned(given);
    this.queues.seek(mq, await this.host.roles.offsets.minOffset(mq));
  }

  async seekToEnd(given: MessageQueue): Promise<void> {
    const mq = this.requireAssigned(given);
    this.queues.seek(mq, await this.host.roles.offsets.maxOffset(mq));
  }

  /** The first offset whose message was stored at or after `timestamp` (SEARCH_OFFSET_BY_TIMESTAMP). */
  async offsetForTimestamp(mq: MessageQueue, timestamp: number): Promise<number> {
    this.assertRunning();
    return this.host.roles.offsets.searchOffset(this.wire(mq), timestamp);
  }

  /**
   * Stores, for every assigned queue, the offset after the last message poll returned; resolves once the offset
   * store acknowledged (rejects with its error).
   */
  commit(): Promise<void> {
    this.assertRunning();
    const run = this.committing.then(() => this.progress.commit(this.queues.active()));
    this.committing = run.catch(() => undefined);
    return run;
  }

  /** The stored next offset to consume of a queue, or -1 when there is none (Java's `committed`). */
  async committed(mq: MessageQueue): Promise<number> {
    this.assertRunning();
    return this.store.read(this.wire(mq), 'store');
  }

  /** Stops pulling these queues; their buffered messages wait for `resume`. */
  pause(mqs: readonly MessageQueue[]): void {
    for (const mq of mqs) this.paused.add(mqKey(this.wire(mq)));
  }

  resume(mqs: readonly MessageQueue[]): void {
    for (const mq of mqs) {
      const key = mqKey(this.wire(mq));
      this.paused.delete(key);
      for (const wake of this.pauseWaiters.get(key) ?? []) wake();
      this.pauseWaiters.delete(key);
    }
    this.buffer.wake();
  }

  /** The queues this consumer reads now: assigned ones, or those allocated to it among its subscriptions. */
  assignment(): MessageQueue[] {
    if (this.mode === 'assign') return [...this.assigned.values()].map((mq) => this.plain(mq));
    return this.queues?.active().map((pq) => this.plain(pq.mq)) ?? [];
  }

  status(): Pick<ConsumerStatus, 'group' | 'clientId' | 'queues' | 'topics'> & { readonly mode: Mode; readonly buffered: number } {
    return { group: this.group, clientId: this.clientId, mode: this.mode, queues: this.queues?.statuses() ?? [], topics: this.ctx.stats.report(), buffered: this.buffer.queued };
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Message[]> {
    while (this.state === 'running') {
      const messages = await this.poll();
      if (messages.length > 0) yield messages;
    }
  }

  /**
   * Stops pulling, stores what was consumed (autoCommit) or what was committed, leaves the group and closes the
   * transport. Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= this.doClose();
    return this.closing;
  }

  private async doClose(): Promise<void> {
    const wasRunning = this.state === 'running';
    this.state = 'closed';
    this.runtimeController.abort();
    this.buffer.close();
    if (wasRunning) {
      await this.rebalance?.idle();
      await this.committing;
      await this.queues.releaseAll(Date.now());
      try {
        await this.host.roles.membership.unregister(this.group);
      } catch (error) {
        reportError(this.ctx, 'unregister', error);
      }
      await this.store.close?.();
    }
    this.controller.abort();
    await this.heartbeats?.stopped();
    await this.host.close();
  }

  /** The status GET_CONSUMER_RUNNING_INFO reports, in a push consumer's shape (nothing runs handlers here). */
  private runningStatus(): ConsumerStatus {
    const status = this.status();
    return {
      ...status,
      state: 'running',
      ready: true,
      paused: this.paused.size > 0,
      strategy: this.strategy.name,
      lag: status.queues.reduce((n, q) => n + q.lag, 0),
      inFlight: 0,
      peakInFlight: 0,
      queuedTasks: this.buffer.queued,
      lastError: undefined,
      consumeMode: 'CONCURRENTLY',
      consumeThreadMin: 1,
    };
  }

  private registration(): ConsumerRegistration {
    const o = this.resolved.group;
    return { group: this.group, messageModel: o.messageModel, consumeFromWhere: o.consumeFromWhere, subscriptions: [...this.subscriptions.values()], consumeType: 'CONSUME_ACTIVELY' };
  }

  private callbacks(): BrokerCallbacks {
    return {
      resetOffsets: async (group, offsets) => {
        if (group === this.group) await this.queues?.resetOffsets(offsets);
      },
      runningInfo: (group) => (group === this.group && this.state === 'running' ? this.runningStatus() : undefined),
      // Java's consumeMessageDirectly serves push consumers only.
      consumeDirectly: async () => undefined,
    };
  }

  private whenResumed(pq: ProcessQueue): Promise<void> | undefined {
    if (!this.paused.has(pq.key)) return undefined;
    return new Promise((resolve) => {
      const list = this.pauseWaiters.get(pq.key) ?? [];
      list.push(resolve);
      this.pauseWaiters.set(pq.key, list);
    });
  }

  private useMode(mode: Mode): void {
    this.assertRunning();
    if (this.mode !== 'none' && this.mode !== mode) throw new IllegalStateError(`${mode} and ${this.mode} are mutually exclusive: this pull consumer already uses ${this.mode}`);
    this.mode = mode;
  }

  private requireAssigned(given: MessageQueue): MessageQueue {
    this.assertRunning();
    const mq = this.wire(given);
    const owned = this.mode === 'assign' ? this.assigned.has(mqKey(mq)) : this.queues.active().some((pq) => pq.key === mqKey(mq));
    if (!owned) throw new IllegalStateError(`The message queue is not in assigned list${this.mode === 'subscribe' ? ', may be rebalancing' : ''}, message queue: ${mqLabel(given)}`);
    return mq;
  }

  private wrap(topic: string): string {
    return wrapNamespace(this.resolved.namespace, topic);
  }

  /** A queue as the broker knows it (its topic in the namespace). */
  private wire(mq: MessageQueue): MessageQueue {
    return { topic: this.wrap(mq.topic), brokerName: mq.brokerName, queueId: mq.queueId };
  }

  /** A queue as the application knows it. */
  private plain(mq: MessageQueue): MessageQueue {
    return this.resolved.namespace ? { ...mq, topic: withoutNamespace(this.resolved.namespace, mq.topic) } : mq;
  }

  private assertRunning(): void {
    if (this.state !== 'running') throw new IllegalStateError(`pull consumer ${this.clientId} is ${this.state === 'new' ? 'not started' : 'closed'}`);
  }
}

/**
 * Creates and starts a pull consumer; every option is checked first (one ConfigurationError lists each problem).
 *
 * @example
 * ```ts
 * const consumer = await createPullConsumer({ transport: rocketmqTransport({ nameServer }), group: 'batch' });
 * await consumer.subscribe('orders', { sql: "region = 'eu'" });
 * const messages = await consumer.poll({ timeoutMs: 1_000 });
 * ```
 */
export async function createPullConsumer(options: PullConsumerOptions): Promise<PullConsumer> {
  const consumer = new PullConsumer(options, resolvePullConsumerOptions(options));
  await consumer.start();
  return consumer;
}
