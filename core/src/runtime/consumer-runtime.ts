import { Subject, exhaustMap, interval, takeUntil } from 'rxjs';
import type { ConsumerDefinition } from '../definition/consumer-definition';
import type { EventBus } from '../events/event-bus';
import { retryTopicOf } from '../model/constants';
import type { MessageQueue } from '../model/message-queue';
import { parseSubscription, type SubscriptionData } from '../model/subscription';
import type { Profile } from '../options/profile';
import type { AllocationStrategy } from '../spi/allocation-strategy';
import type { OffsetStore } from '../spi/offset-store';
import type { BrokerOffsets, ConsumerRegistration, GroupMembership, MessagePuller, QueueLocks, RetryChannel, RouteResolver } from '../spi/transport.roles';
import { deferred, toError, type Deferred } from '../util/deferred';
import type { ByteBudget } from './byte-budget';
import { ConcurrentConsumeService } from './concurrent-consume.service';
import type { ConsumeHook } from './consume-hook';
import type { ConsumeService } from './consume-service';
import { bindHandler, type HandlerBinding } from './handler-binding';
import { OrderlyConsumeService } from './orderly-consume.service';
import { ProcessQueueTable } from './process-queue-table';
import { QueueLockManager } from './queue-lock-manager';
import { RebalanceService } from './rebalance.service';
import type { ConsumerStatus, ReleaseReport } from './runtime-status';

export interface ConsumerRuntimeDeps {
  readonly clientId: string;
  readonly profile: Profile;
  readonly events: EventBus;
  readonly budget: ByteBudget;
  readonly hooks: readonly ConsumeHook[];
  readonly strategy: AllocationStrategy;
  readonly offsetStore: OffsetStore;
  readonly routes: RouteResolver;
  readonly membership: GroupMembership;
  readonly puller: MessagePuller;
  readonly brokerOffsets: BrokerOffsets;
  readonly retry: RetryChannel | undefined;
  readonly locks: QueueLocks | undefined;
  /** Called when a queue-assignment change should be announced to the broker (a heartbeat). */
  readonly onAssignmentChanged?: () => void;
  readonly messageQueueChanged?: (group: string, topic: string, mqAll: readonly MessageQueue[], allocated: readonly MessageQueue[]) => void;
}

/**
 * One consumer group in one app: RocketMQ's DefaultMQPushConsumerImpl with its RebalanceImpl. It owns the lifecycle
 * (start, pause, stop, crash), the rebalance service, the consume service, the persist timer and the lock renewal;
 * the queues themselves live in the ProcessQueueTable.
 */
export class ConsumerRuntime {
  readonly group: string;
  private readonly subscriptions = new Map<string, SubscriptionData>();
  private readonly handlers = new Map<string, HandlerBinding>();
  private consume!: ConsumeService;
  private queues!: ProcessQueueTable;
  private rebalance!: RebalanceService;
  /** Broker locks: ORDERLY in CLUSTERING, or exclusiveHandoff. */
  private readonly lockManager: QueueLockManager | undefined;
  private readonly stop$ = new Subject<void>();
  private paused: Deferred | undefined;
  /** Held by the offset store's backpressure, apart from the user's pause, so resume() does not cancel it. */
  private storeHold: Deferred | undefined;
  private unwatchStore: (() => void) | undefined;
  private lastError: { where: string; message: string; at: number } | undefined;
  private state: 'new' | 'running' | 'stopping' | 'stopped' = 'new';
  private readonly unsubscribeErrors: () => void;

  constructor(
    readonly definition: ConsumerDefinition,
    private readonly deps: ConsumerRuntimeDeps,
  ) {
    this.group = definition.group;
    const o = definition.options;
    for (const sub of definition.subscriptions) this.subscriptions.set(sub.topic, sub.subscription);
    if (o.messageModel === 'CLUSTERING') {
      // RocketMQ's copySubscription: CLUSTERING consumers also read their retry topic, with "*".
      const retry = retryTopicOf(this.group);
      this.subscriptions.set(retry, parseSubscription(retry, '*'));
    }
    if (deps.locks && o.messageModel === 'CLUSTERING' && (o.consumeMode === 'ORDERLY' || o.exclusiveHandoff)) {
      // A refused renewal means another member owns the queue now: start nothing more of it, and let the next
      // rebalance release it.
      this.lockManager = new QueueLockManager(this.group, deps.locks, deps.profile, deps.events, (pq) => {
        this.consume?.discardQueued(pq);
        this.requestRebalance();
      });
    }
    this.unsubscribeErrors = deps.events.on('consumer.error', (e) => {
      if (e.group === this.group) this.lastError = { where: e.where, message: e.error.message, at: Date.now() };
    });
  }

  /** What the heartbeat tells the broker about this group. */
  registration(): ConsumerRegistration {
    const o = this.definition.options;
    return { group: this.group, messageModel: o.messageModel, consumeFromWhere: o.consumeFromWhere, subscriptions: [...this.subscriptions.values()] };
  }

  /** Resolves handlers (may throw ConfigurationError); called before anything starts. */
  bindHandlers(): void {
    for (const sub of this.definition.subscriptions) this.handlers.set(sub.topic, bindHandler(sub));
  }

  async start(): Promise<void> {
    const { deps } = this;
    const o = this.definition.options;
    await deps.offsetStore.load();
    const serviceDeps = {
      group: this.group,
      options: o,
      profile: deps.profile,
      handlers: this.handlers,
      retry: deps.retry,
      lockManager: this.lockManager,
      events: deps.events,
      hooks: deps.hooks,
      budget: deps.budget,
    };
    this.consume = o.consumeMode === 'ORDERLY' ? new OrderlyConsumeService(serviceDeps) : new ConcurrentConsumeService(serviceDeps);
    this.queues = new ProcessQueueTable({
      group: this.group,
      options: o,
      subscriptions: this.subscriptions,
      profile: deps.profile,
      events: deps.events,
      budget: deps.budget,
      offsetStore: deps.offsetStore,
      puller: deps.puller,
      brokerOffsets: deps.brokerOffsets,
      lockManager: this.lockManager,
      consume: this.consume,
      isRunning: () => this.state === 'running',
      whenRunning: () => this.paused?.promise ?? this.storeHold?.promise,
      requestRebalance: () => this.requestRebalance(),
      onAssignmentChanged: () => deps.onAssignmentChanged?.(),
    });
    this.rebalance = new RebalanceService(
      {
        group: this.group,
        clientId: deps.clientId,
        broadcasting: o.messageModel === 'BROADCASTING',
        topics: () => [...this.subscriptions.keys()],
        applyAllocation: (topic, allocated) => this.queues.applyAllocation(topic, allocated),
        dropUnsubscribed: (topics) => this.queues.dropUnsubscribed(topics),
        queuesChanged: (topic, mqAll, allocated) => deps.messageQueueChanged?.(this.group, topic, mqAll, allocated),
      },
      { strategy: deps.strategy, routes: deps.routes, membership: deps.membership, events: deps.events, profile: deps.profile },
    );
    this.state = 'running';
    interval(deps.profile.persistIntervalMs)
      .pipe(
        exhaustMap(() => this.queues.persistOwned()),
        takeUntil(this.stop$),
      )
      .subscribe();
    this.unwatchStore = deps.offsetStore.watchBackpressure?.((hold) => this.holdForStore(hold));
    this.lockManager?.startRenewing(() => this.queues.active());
    this.rebalance.start();
    deps.events.emit('consumer.started', { group: this.group, clientId: deps.clientId });
  }

  /** Requests a rebalance pass (after the current one). */
  requestRebalance(): void {
    if (this.state === 'running') this.rebalance.request();
  }

  pause(): void {
    if (this.paused) return;
    this.paused = deferred();
    this.deps.events.emit('consumer.paused', { group: this.group, reason: 'user' });
  }

  resume(): void {
    const paused = this.paused;
    if (!paused) return;
    this.paused = undefined;
    paused.resolve();
    this.deps.events.emit('consumer.resumed', { group: this.group, reason: 'user' });
    this.requestRebalance();
  }

  get isPaused(): boolean {
    return this.paused !== undefined;
  }

  /** RESET_CONSUMER_CLIENT_OFFSET from the broker. */
  resetOffsets(entries: ReadonlyArray<{ readonly mq: MessageQueue; readonly offset: number }>): Promise<void> {
    return this.queues.resetOffsets(entries);
  }

  /** Stops rebalancing and pulling, drains every queue until the deadline, commits, and leaves the group. */
  async stop(deadline: number): Promise<ReleaseReport[]> {
    if (this.state !== 'running') return [];
    this.state = 'stopping';
    this.stop$.next();
    await this.rebalance.stop();
    // Wake paused loops so they see the release and exit.
    this.paused?.resolve();
    this.paused = undefined;
    this.unwatchStore?.();
    this.holdForStore(false);
    const reports = await this.queues.releaseAll(deadline);
    try {
      await this.deps.membership.unregister(this.group);
    } catch (error) {
      this.deps.events.emit('consumer.error', { group: this.group, where: 'unregister', error: toError(error) });
    }
    this.lockManager?.stop();
    this.consume.close();
    await this.deps.offsetStore.close?.();
    this.unsubscribeErrors();
    this.state = 'stopped';
    this.deps.events.emit('consumer.stopped', { group: this.group, clientId: this.deps.clientId });
    return reports;
  }

  /**
   * What a killed process looks like to the broker: everything stops at once, nothing is persisted, nothing is
   * unlocked or unregistered (the app then closes its connection). For failure tests.
   */
  crash(): void {
    if (this.state !== 'running') return;
    this.state = 'stopped';
    this.stop$.next();
    void this.rebalance.stop();
    this.lockManager?.stop();
    this.queues.dropAll(new Error('crashed'));
    this.consume.close();
    this.unsubscribeErrors();
  }

  status(): ConsumerStatus {
    const queues = this.queues?.statuses() ?? [];
    return {
      group: this.group,
      clientId: this.deps.clientId,
      state: this.state,
      ready: this.state === 'running' && this.rebalance.completedPasses > 0,
      paused: this.isPaused || this.storeHold !== undefined,
      strategy: this.deps.strategy.name,
      queues,
      lag: queues.reduce((sum, q) => sum + q.lag, 0),
      inFlight: this.consume?.inFlight ?? 0,
      peakInFlight: this.consume?.peakInFlight ?? 0,
      queuedTasks: this.consume?.queued ?? 0,
      lastError: this.lastError,
    };
  }

  private holdForStore(hold: boolean): void {
    if (hold && !this.storeHold) {
      this.storeHold = deferred();
      this.deps.events.emit('consumer.paused', { group: this.group, reason: 'offset-store' });
    } else if (!hold && this.storeHold) {
      this.storeHold.resolve();
      this.storeHold = undefined;
      this.deps.events.emit('consumer.resumed', { group: this.group, reason: 'offset-store' });
    }
  }
}
