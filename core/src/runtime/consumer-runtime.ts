import { Subject, exhaustMap, interval, takeUntil, type Subscription } from 'rxjs';
import type { ConsumerDefinition } from '../definition/consumer-definition';
import type { EventBus } from '../events/event-bus';
import { isRetryTopic, retryTopicOf } from '../model/constants';
import { mqKey, mqLabel, sameQueue, type MessageQueue } from '../model/message-queue';
import { parseSubscription, type SubscriptionData } from '../model/subscription';
import { parseConsumeTimestamp } from '../options/option-checks';
import type { Profile } from '../options/profile';
import type { AllocationStrategy } from '../spi/allocation-strategy';
import type { OffsetStore } from '../spi/offset-store';
import type { BrokerOffsets, ConsumerRegistration, GroupMembership, MessagePuller, QueueLocks, RetryChannel, RouteResolver } from '../spi/transport.roles';
import { deferred, toError, type Deferred } from '../util/deferred';
import type { ByteBudget } from './byte-budget';
import { ConcurrentConsumeService } from './concurrent-consume.service';
import { OrderlyConsumeService } from './orderly-consume.service';
import { QueueLockManager } from './queue-lock-manager';
import type { ConsumeHook } from './consume-hook';
import type { ConsumeService } from './consume-service';
import { bindHandler, type HandlerBinding } from './handler-binding';
import { ProcessQueue } from './process-queue';
import { PullLoop, limitsFromOptions, type PullLimits } from './pull-loop';
import { RebalanceService } from './rebalance.service';
import type { ConsumerStatus, QueueStatus, ReleaseReport } from './runtime-status';

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
 * One consumer group in one app: RocketMQ's DefaultMQPushConsumerImpl with its RebalanceImpl and process-queue
 * table. Owns the rebalance service, one pull loop per owned queue, the consume service and the persist timer.
 */
export class ConsumerRuntime {
  readonly group: string;
  private readonly table = new Map<string, ProcessQueue>();
  private readonly loops = new Map<string, Subscription>();
  private readonly subscriptions = new Map<string, SubscriptionData>();
  private readonly handlers = new Map<string, HandlerBinding>();
  private consume!: ConsumeService;
  private rebalance!: RebalanceService;
  /** Broker locks: ORDERLY in CLUSTERING, or exclusiveHandoff. */
  private readonly lockManager: QueueLockManager | undefined;
  private readonly stop$ = new Subject<void>();
  private limits: PullLimits;
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
    this.limits = limitsFromOptions(definition.options, 0);
    for (const sub of definition.subscriptions) this.subscriptions.set(sub.topic, sub.subscription);
    if (definition.options.messageModel === 'CLUSTERING') {
      // RocketMQ's copySubscription: CLUSTERING consumers also read their retry topic, with "*".
      const retry = retryTopicOf(this.group);
      this.subscriptions.set(retry, parseSubscription(retry, '*'));
    }
    const o = definition.options;
    if (deps.locks && o.messageModel === 'CLUSTERING' && (o.consumeMode === 'ORDERLY' || o.exclusiveHandoff)) {
      this.lockManager = new QueueLockManager(this.group, deps.locks, deps.profile, deps.events);
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
      clientId: deps.clientId,
      options: o,
      profile: deps.profile,
      handlers: this.handlers,
      offsetStore: deps.offsetStore,
      retry: deps.retry,
      lockManager: this.lockManager,
      events: deps.events,
      hooks: deps.hooks,
      budget: deps.budget,
    };
    this.consume = o.consumeMode === 'ORDERLY' ? new OrderlyConsumeService(serviceDeps) : new ConcurrentConsumeService(serviceDeps);
    this.rebalance = new RebalanceService(
      {
        group: this.group,
        clientId: deps.clientId,
        broadcasting: o.messageModel === 'BROADCASTING',
        topics: () => [...this.subscriptions.keys()],
        applyAllocation: (topic, allocated) => this.applyAllocation(topic, allocated),
        dropUnsubscribed: (topics) => this.dropUnsubscribed(topics),
        queuesChanged: (topic, mqAll, allocated) => deps.messageQueueChanged?.(this.group, topic, mqAll, allocated),
      },
      { strategy: deps.strategy, routes: deps.routes, membership: deps.membership, events: deps.events, profile: deps.profile },
    );
    this.state = 'running';
    interval(deps.profile.persistIntervalMs)
      .pipe(
        exhaustMap(() => this.persistOwned()),
        takeUntil(this.stop$),
      )
      .subscribe();
    this.unwatchStore = deps.offsetStore.watchBackpressure?.((hold) => this.holdForStore(hold));
    this.lockManager?.startRenewing(() => [...this.table.values()].filter((pq) => pq.state === 'active'));
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

  get isPaused(): boolean {
    return this.paused !== undefined;
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
    const reports = await Promise.all([...this.table.values()].map((pq) => this.release(pq, deadline)));
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
    for (const pq of this.table.values()) {
      pq.drop();
      this.loops.get(pq.key)?.unsubscribe();
      this.consume.abortRunning(new Set([pq]), new Error('crashed'));
    }
    this.loops.clear();
    this.table.clear();
    this.consume.close();
    this.unsubscribeErrors();
  }

  status(): ConsumerStatus {
    const queues: QueueStatus[] = [...this.table.values()].map((pq) => ({
      mq: pq.mq,
      state: pq.state,
      cachedCount: pq.msgCount,
      cachedBytes: pq.msgBytes,
      nextOffset: pq.nextOffset,
      committedOffset: pq.committedOffset,
      maxOffset: pq.brokerMaxOffset,
      lag: pq.brokerMaxOffset < 0 ? 0 : Math.max(0, pq.brokerMaxOffset - Math.max(pq.committedOffset, 0)),
      inflight: pq.inflight,
    }));
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

  /** Owned queues (not being released). */
  ownedQueues(): MessageQueue[] {
    return [...this.table.values()].filter((pq) => pq.state === 'active').map((pq) => pq.mq);
  }

  private async applyAllocation(topic: string, allocated: readonly MessageQueue[]) {
    const wanted = new Map(allocated.map((mq) => [mqKey(mq), mq]));
    const removed: MessageQueue[] = [];
    const releases: Promise<unknown>[] = [];
    for (const pq of this.table.values()) {
      if (pq.mq.topic !== topic || wanted.has(pq.key) || pq.state !== 'active') continue;
      removed.push(pq.mq);
      releases.push(this.release(pq, Date.now() + this.releaseBoundMs()));
    }
    const added: MessageQueue[] = [];
    let complete = true;
    const additions = [...wanted.values()]
      .filter((mq) => !this.table.has(mqKey(mq)))
      .map(async (mq) => {
        if (await this.addQueue(mq)) added.push(mq);
        else complete = false;
      });
    await Promise.all([...releases, ...additions]);
    const changed = added.length > 0 || removed.length > 0;
    if (changed) {
      this.limits = limitsFromOptions(this.definition.options, this.table.size);
      this.deps.onAssignmentChanged?.();
    }
    // A queue re-assigned while it was still being released is added on the next pass.
    if ([...wanted.keys()].some((key) => !this.table.has(key))) complete = false;
    return { changed, complete, added, removed };
  }

  private async dropUnsubscribed(topics: ReadonlySet<string>): Promise<void> {
    const stale = [...this.table.values()].filter((pq) => !topics.has(pq.mq.topic) && pq.state === 'active');
    await Promise.all(stale.map((pq) => this.release(pq, Date.now() + this.releaseBoundMs())));
  }

  /** How long a released queue waits for its running calls: ORDERLY waits for its batch up to RocketMQ's 20 s. */
  private releaseBoundMs(): number {
    return this.definition.options.consumeMode === 'ORDERLY' ? this.deps.profile.lockForceReleaseMs : this.deps.profile.drainTimeoutMs;
  }

  /** New queue: compute where to start (RocketMQ's computePullFromWhere), create its ProcessQueue, start pulling. */
  private async addQueue(mq: MessageQueue): Promise<boolean> {
    const subscription = this.subscriptions.get(mq.topic);
    if (!subscription || this.state !== 'running') return false;
    // Under locks the queue is taken only once its previous owner unlocked it (after draining and persisting), or
    // its lock expired; the offset is read after that, so it is the previous owner's final one.
    if (this.lockManager && !(await this.lockManager.lock(mq))) return false;
    let offset: number;
    try {
      offset = await this.startOffset(mq);
    } catch (error) {
      this.deps.events.emit('consumer.error', { group: this.group, where: 'start-offset', error: toError(error), mq });
      return false;
    }
    if (this.state !== 'running' || this.table.has(mqKey(mq))) return false;
    const pq = new ProcessQueue(mq, subscription, offset);
    pq.committedOffset = offset;
    if (this.lockManager) this.lockManager.markLocked(pq);
    this.deps.offsetStore.update(mq, offset, { increaseOnly: false });
    this.table.set(pq.key, pq);
    this.startLoop(pq);
    return true;
  }

  private async startOffset(mq: MessageQueue): Promise<number> {
    const stored = await this.deps.offsetStore.read(mq, 'store');
    if (stored >= 0) return stored;
    const o = this.definition.options;
    const retry = isRetryTopic(mq.topic);
    switch (o.consumeFromWhere) {
      case 'CONSUME_FROM_FIRST_OFFSET':
        return 0;
      case 'CONSUME_FROM_TIMESTAMP':
        return retry ? this.deps.brokerOffsets.maxOffset(mq) : this.deps.brokerOffsets.searchOffset(mq, parseConsumeTimestamp(o.consumeTimestamp)!);
      default:
        return retry ? 0 : this.deps.brokerOffsets.maxOffset(mq);
    }
  }

  private startLoop(pq: ProcessQueue): void {
    const loop = new PullLoop(pq, {
      group: this.group,
      options: this.definition.options,
      profile: this.deps.profile,
      puller: this.deps.puller,
      consume: this.consume,
      offsetStore: this.deps.offsetStore,
      budget: this.deps.budget,
      events: this.deps.events,
      limits: () => this.limits,
      whenRunning: () => this.paused?.promise ?? this.storeHold?.promise,
      lockValid: this.lockManager ? (q) => this.lockManager!.isValid(q) : undefined,
      offsetIllegal: (q, next) => this.offsetIllegal(q, next),
    });
    this.loops.set(pq.key, loop.start());
  }

  /**
   * Drain-aware release: stop pulling (abandoning the long poll), forget waiting work, wait for running handler
   * calls until the deadline, commit what finished, then remove the queue.
   */
  private async release(pq: ProcessQueue, deadline: number): Promise<ReleaseReport> {
    const started = Date.now();
    pq.beginDrain();
    this.loops.get(pq.key)?.unsubscribe();
    this.loops.delete(pq.key);
    this.consume.discardQueued(pq);
    const drained = await waitUntil(pq.waitForIdleHandlers(), deadline);
    const abandoned = pq.inflight;
    if (abandoned > 0) this.consume.abortRunning(new Set([pq]), new Error(`queue ${mqLabel(pq.mq)} released before its handler finished`));
    const offset = pq.committableOffset();
    if (offset > pq.committedOffset) pq.committedOffset = offset;
    if (pq.committedOffset >= 0) this.deps.offsetStore.update(pq.mq, pq.committedOffset, { increaseOnly: true });
    pq.drop();
    this.deps.budget.release(pq.clear());
    try {
      await this.deps.offsetStore.persist([pq.mq]);
    } catch (error) {
      this.deps.events.emit('consumer.error', { group: this.group, where: 'persist-on-release', error: toError(error), mq: pq.mq });
    }
    this.deps.offsetStore.remove(pq.mq);
    if (this.lockManager) await this.lockManager.unlock([pq.mq]);
    if (this.table.get(pq.key) === pq) this.table.delete(pq.key);
    const report: ReleaseReport = { mq: pq.mq, offset: pq.committedOffset, drained, abandoned, durationMs: Date.now() - started };
    this.deps.events.emit('consumer.queue-released', { group: this.group, ...report });
    return report;
  }

  /** RocketMQ's OFFSET_ILLEGAL repair: take the broker's offset as an explicit reset, drop the queue, rebalance. */
  private async offsetIllegal(pq: ProcessQueue, nextOffset: number): Promise<void> {
    pq.drop();
    this.loops.get(pq.key)?.unsubscribe();
    this.loops.delete(pq.key);
    this.consume.discardQueued(pq);
    this.deps.budget.release(pq.clear());
    this.deps.offsetStore.reset(pq.mq, nextOffset);
    try {
      await this.deps.offsetStore.persist([pq.mq]);
    } catch (error) {
      this.deps.events.emit('consumer.error', { group: this.group, where: 'offset-illegal-persist', error: toError(error), mq: pq.mq });
    }
    this.deps.offsetStore.remove(pq.mq);
    if (this.table.get(pq.key) === pq) this.table.delete(pq.key);
    this.requestRebalance();
  }

  private async persistOwned(): Promise<void> {
    const mqs: MessageQueue[] = [];
    for (const pq of this.table.values()) {
      if (pq.state !== 'active') continue;
      // The consume path keeps progress on the ProcessQueue; the store's table catches up here.
      if (pq.committedOffset >= 0) this.deps.offsetStore.update(pq.mq, pq.committedOffset, { increaseOnly: true });
      mqs.push(pq.mq);
    }
    if (mqs.length === 0) return;
    try {
      await this.deps.offsetStore.persist(mqs);
    } catch (error) {
      this.deps.events.emit('consumer.error', { group: this.group, where: 'persist', error: toError(error) });
    }
  }

  /**
   * RESET_CONSUMER_CLIENT_OFFSET: drop the affected process queues (their cached and running messages no longer
   * count), store the new offsets as explicit resets, and rebalance so the queues are pulled again from them.
   */
  async resetOffsets(entries: ReadonlyArray<{ readonly mq: MessageQueue; readonly offset: number }>): Promise<void> {
    for (const { mq } of entries) {
      const pq = this.table.get(mqKey(mq));
      if (!pq) continue;
      pq.drop();
      this.loops.get(pq.key)?.unsubscribe();
      this.loops.delete(pq.key);
      this.consume.discardQueued(pq);
      this.deps.budget.release(pq.clear());
      this.table.delete(pq.key);
    }
    for (const { mq, offset } of entries) this.deps.offsetStore.reset(mq, offset);
    try {
      await this.deps.offsetStore.persist(entries.map((e) => e.mq));
    } finally {
      for (const { mq } of entries) this.deps.offsetStore.remove(mq);
      this.requestRebalance();
    }
  }

  /** For tests and tools: is this queue owned and active? */
  owns(mq: MessageQueue): boolean {
    const pq = this.table.get(mqKey(mq));
    return pq !== undefined && pq.state === 'active' && sameQueue(pq.mq, mq);
  }
}

/** Resolves true when the promise settles before the deadline, false at the deadline. */
async function waitUntil(promise: Promise<void>, deadline: number): Promise<boolean> {
  const ms = deadline - Date.now();
  if (ms <= 0) return false;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
