import type { ConsumerDefinition } from '../definition/consumer-definition';
import type { MessageRecord } from '../model/message';
import type { DirectConsumeResult } from '../spi/transport.roles';
import { ConsumeStats } from './queue/consume-stats';
import { retryTopicOf } from '../model/constants';
import type { MessageQueue } from '../model/message-queue';
import { parseSubscription, type SubscriptionData } from '../model/subscription';
import { BrokerOffsetStore } from '../offsets/broker-offset-store';
import type { AllocationStrategy } from '../spi/allocation-strategy';
import type { OffsetStore } from '../spi/offset-store';
import type { ConsumerRegistration } from '../spi/transport.roles';
import { childController } from '../util/abort';
import { ConsumeProgress } from './progress/consume-progress';
import type { DispatchingConsumeService } from './queue/consume-service';
import { groupContext, type GroupContext } from './queue/group-context';
import { reportError } from '../events/report-error';
import { bindHandler, type HandlerBinding } from './delivery/handler-binding';
import { HandlerInvoker } from './delivery/handler-invoker';
import { PauseGate, type PauseReason } from './queue/pause-gate';
import { every } from '../util/periodic';
import { wireGroup } from './group-wiring';
import type { ConsumerRuntimeHost } from './consumer-runtime-host';
import { ProcessQueueTable } from './queue/process-queue-table';
import { QueueLockManager } from './queue/queue-lock-manager';
import { RebalanceService } from './queue/rebalance.service';
import type { ConsumerStatus, ReleaseReport } from '../model/consumer-status';

export type { ConsumerRuntimeHost } from './consumer-runtime-host';

/**
 * One consumer group in one app: RocketMQ's DefaultMQPushConsumerImpl with its RebalanceImpl. It assembles the
 * group's parts (invoker, progress owner, consume service, process-queue table, rebalance, locks) around one
 * GroupContext and owns their lifecycle: start, pause, stop (drain and commit), crash.
 */
export class ConsumerRuntime {
  readonly group: string;
  private readonly subscriptions = new Map<string, SubscriptionData>();
  private readonly handlers = new Map<string, HandlerBinding>();
  private readonly controller: AbortController;
  private readonly ctx: GroupContext;
  private readonly progress: ConsumeProgress;
  private readonly lockManager: QueueLockManager | undefined;
  private readonly pauses = new PauseGate();
  private consume: DispatchingConsumeService | undefined;
  private invoker: HandlerInvoker | undefined;
  private queues: ProcessQueueTable | undefined;
  private rebalance: RebalanceService | undefined;
  private persisting: Promise<void> = Promise.resolve();
  private unwatchStore: (() => void) | undefined;
  private lastError: { where: string; message: string; at: number } | undefined;
  private state: 'new' | 'running' | 'stopping' | 'stopped' = 'new';
  private readonly unsubscribeErrors: () => void;

  constructor(
    readonly definition: ConsumerDefinition,
    private readonly host: ConsumerRuntimeHost,
    private readonly strategy: AllocationStrategy,
    private readonly offsetStore: OffsetStore,
  ) {
    this.group = definition.group;
    const o = definition.options;
    for (const sub of definition.subscriptions) this.subscriptions.set(sub.topic, sub.subscription);
    if (o.messageModel === 'CLUSTERING') {
      // RocketMQ's copySubscription: CLUSTERING consumers also read their retry topic, with "*".
      const retry = retryTopicOf(this.group);
      this.subscriptions.set(retry, parseSubscription(retry, '*'));
    }
    this.controller = childController(host.signal);
    this.ctx = groupContext({
      group: this.group,
      clientId: host.clientId,
      options: o,
      profile: host.profile,
      events: host.events,
      budget: host.budget,
      namespace: host.namespace,
      signal: this.controller.signal,
    });
    const { locks } = host.transport;
    const locking =
      locks !== undefined && o.messageModel === 'CLUSTERING' && (o.consumeMode === 'ORDERLY' || o.exclusiveHandoff);
    // A refused renewal means another member owns the queue now: start nothing more of it, and let the next
    // rebalance release it.
    this.lockManager = locking
      ? new QueueLockManager(this.ctx, locks, (pq) => {
          this.consume?.discardQueued(pq);
          this.requestRebalance();
        })
      : undefined;
    this.progress = new ConsumeProgress(this.ctx, offsetStore, offsetStore instanceof BrokerOffsetStore);
    this.unsubscribeErrors = host.events.on('consumer.error', (e) => {
      if (e.group === this.group) this.lastError = { where: e.where, message: e.error.message, at: Date.now() };
    });
  }

  /** What the heartbeat tells the broker about this group. */
  registration(): ConsumerRegistration {
    const o = this.definition.options;
    return {
      group: this.group,
      messageModel: o.messageModel,
      consumeFromWhere: o.consumeFromWhere,
      subscriptions: [...this.subscriptions.values()],
    };
  }

  /** Resolves handlers (may throw ConfigurationError); called before anything starts. */
  bindHandlers(): void {
    for (const sub of this.definition.subscriptions) this.handlers.set(sub.topic, bindHandler(sub));
  }

  async start(): Promise<void> {
    const { ctx, host, offsetStore } = this;
    await offsetStore.load();
    const { invoker, consume, queues, rebalance } = wireGroup(
      {
        ctx,
        transport: host.transport,
        hooks: host.hooks,
        handlers: this.handlers,
        subscriptions: this.subscriptions,
        progress: this.progress,
        strategy: this.strategy,
        lockManager: this.lockManager,
        queuesChanged: (topic, mqAll, allocated) => host.messageQueueChanged?.(this.group, topic, mqAll, allocated),
      },
      {
        whenRunning: () => this.pauses.whenOpen(),
        requestRebalance: () => this.requestRebalance(),
        onAssignmentChanged: () => host.onAssignmentChanged(),
      },
    );
    this.invoker = invoker;
    this.consume = consume;
    this.queues = queues;
    this.rebalance = rebalance;
    if (this.isPaused) void consume.pauseDispatch();
    this.state = 'running';
    this.persisting = every(
      ctx.profile.persistIntervalMs,
      () => queues.persistOwned(),
      ctx.signal,
      (error) => reportError(ctx, 'persist', error),
    );
    void every(
      ConsumeStats.SAMPLE_MS,
      () => ctx.stats.sample(),
      ctx.signal,
      (error) => reportError(ctx, 'stats', error),
    );
    this.unwatchStore = offsetStore.watchBackpressure?.((hold) =>
      hold ? this.hold('offset-store') : this.release('offset-store'),
    );
    this.lockManager?.startRenewing(() => queues.active());
    rebalance.start();
    host.events.emit('consumer.started', { group: this.group, clientId: host.clientId });
  }

  /** CONSUME_MESSAGE_DIRECTLY: the handler once on a record the broker sent; undefined before the handlers are bound. */
  async consumeDirectly(record: MessageRecord, brokerName: string): Promise<DirectConsumeResult | undefined> {
    return this.invoker?.consumeDirectly(record, { topic: record.topic, brokerName, queueId: record.queueId });
  }

  /** Requests a rebalance pass (after the current one). */
  requestRebalance(): void {
    if (this.state === 'running') this.rebalance?.request();
  }

  /**
   * The user's pause holds both pulling and dispatch (the offset store's hold only pulling): from this call on no
   * handler call starts, and what arrives (a long poll the broker was holding, a retry) stays cached. Resolves once
   * the calls that were running have finished.
   */
  pause(): Promise<void> {
    this.hold('user');
    return this.consume?.pauseDispatch() ?? Promise.resolve();
  }

  resume(): void {
    if (!this.release('user')) return;
    this.consume?.resumeDispatch();
    this.requestRebalance();
  }

  get isPaused(): boolean {
    return this.pauses.has('user');
  }

  /** RESET_CONSUMER_CLIENT_OFFSET from the broker. */
  async resetOffsets(entries: ReadonlyArray<{ readonly mq: MessageQueue; readonly offset: number }>): Promise<void> {
    await this.queues?.resetOffsets(entries);
  }

  /**
   * Stops rebalancing and pulling (the group's signal aborts every queue's), drains every queue until the
   * deadline, commits, and leaves the group.
   */
  async stop(deadline: number): Promise<ReleaseReport[]> {
    if (this.state !== 'running') return [];
    this.state = 'stopping';
    this.controller.abort();
    await this.rebalance?.idle();
    this.unwatchStore?.();
    // The loops saw the abort; what is left of the pauses is cleared (the store's hold ends with an event, as its
    // flushes will no longer be waited for).
    this.pauses.release('user');
    this.release('offset-store');
    // What waited for dispatch starts now and finds its queue stopped, so no handler runs: it stays uncommitted.
    this.consume?.resumeDispatch();
    const reports = (await this.queues?.releaseAll(deadline)) ?? [];
    await this.persisting;
    try {
      await this.host.transport.membership.unregister(this.group);
    } catch (error) {
      reportError(this.ctx, 'unregister', error);
    }
    await this.lockManager?.stop();
    this.consume?.close();
    await this.offsetStore.close?.();
    this.unsubscribeErrors();
    this.state = 'stopped';
    this.host.events.emit('consumer.stopped', { group: this.group, clientId: this.host.clientId });
    return reports;
  }

  /**
   * What a killed process looks like to the broker: everything stops at once, nothing is persisted, nothing is
   * unlocked or unregistered (the app then closes its connection). For failure tests.
   */
  crash(): void {
    if (this.state !== 'running') return;
    this.state = 'stopped';
    this.controller.abort();
    void this.rebalance?.idle();
    void this.lockManager?.stop();
    this.queues?.dropAll(new Error('crashed'));
    this.consume?.close();
    this.unsubscribeErrors();
  }

  /**
   * After the process was frozen (see StallWatch): every queue is dropped without committing (what it cached was
   * possibly consumed by the members that took over; its uncommitted progress is the only thing read again) and a
   * rebalance takes the queues back at their stored offsets.
   */
  recoverFromStall(frozenMs: number): void {
    if (this.state !== 'running') return;
    reportError(
      this.ctx,
      'stall',
      new Error(`the process was frozen for ${frozenMs} ms: cached messages dropped, offsets read again`),
    );
    this.queues?.dropAll(new Error(`frozen for ${frozenMs} ms`));
    this.requestRebalance();
  }

  status(): ConsumerStatus {
    const queues = this.queues?.statuses() ?? [];
    return {
      group: this.group,
      clientId: this.host.clientId,
      state: this.state,
      ready: this.state === 'running' && (this.rebalance?.balancedPasses ?? 0) > 0,
      unroutedTopics: this.rebalance?.unroutedTopics() ?? [],
      paused: this.pauses.isHeld,
      strategy: this.strategy.name,
      queues,
      lag: queues.reduce((sum, q) => sum + q.lag, 0),
      inFlight: this.consume?.inFlight ?? 0,
      peakInFlight: this.consume?.peakInFlight ?? 0,
      queuedTasks: this.consume?.queued ?? 0,
      lastError: this.lastError,
      consumeMode: this.definition.options.consumeMode,
      consumeThreadMin: this.definition.options.consumeThreadMin,
      topics: this.ctx.stats.report(),
    };
  }

  private hold(reason: PauseReason): void {
    if (this.pauses.hold(reason)) this.host.events.emit('consumer.paused', { group: this.group, reason });
  }

  private release(reason: PauseReason): boolean {
    const released = this.pauses.release(reason);
    if (released) this.host.events.emit('consumer.resumed', { group: this.group, reason });
    return released;
  }
}
