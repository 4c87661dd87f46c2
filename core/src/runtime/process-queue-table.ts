import type { Subscription } from 'rxjs';
import type { EventBus } from '../events/event-bus';
import { mqKey, mqLabel, type MessageQueue } from '../model/message-queue';
import type { SubscriptionData } from '../model/subscription';
import type { ResolvedGroupOptions } from '../options/consumer-options';
import type { Profile } from '../options/profile';
import type { OffsetStore } from '../spi/offset-store';
import type { BrokerOffsets, MessagePuller } from '../spi/transport.roles';
import { toError } from '../util/deferred';
import { waitUntil } from '../util/wait-until';
import type { ByteBudget } from './byte-budget';
import type { ConsumeService } from './consume-service';
import { ProcessQueue } from './process-queue';
import { PullLoop, limitsFromOptions, type PullLimits } from './pull-loop';
import type { QueueLockManager } from './queue-lock-manager';
import type { QueueStatus, ReleaseReport } from './runtime-status';
import { computeStartOffset } from './start-offset';

export interface ProcessQueueTableDeps {
  readonly group: string;
  readonly options: ResolvedGroupOptions;
  readonly subscriptions: ReadonlyMap<string, SubscriptionData>;
  readonly profile: Profile;
  readonly events: EventBus;
  readonly budget: ByteBudget;
  readonly offsetStore: OffsetStore;
  readonly puller: MessagePuller;
  readonly brokerOffsets: BrokerOffsets;
  readonly lockManager: QueueLockManager | undefined;
  readonly consume: ConsumeService;
  isRunning(): boolean;
  /** Resolves at once when pulling may go on, else when it may resume (user pause, store backpressure). */
  whenRunning(): Promise<void> | undefined;
  requestRebalance(): void;
  onAssignmentChanged(): void;
}

/**
 * RocketMQ's processQueueTable with what happens to its entries: a queue is added (locked first under locks,
 * its start offset computed, its pull loop started) and released (drained, committed, unlocked), and the whole
 * table is persisted, reset or dropped.
 */
export class ProcessQueueTable {
  private readonly table = new Map<string, ProcessQueue>();
  private readonly loops = new Map<string, Subscription>();
  private limits: PullLimits;

  constructor(private readonly deps: ProcessQueueTableDeps) {
    this.limits = limitsFromOptions(deps.options, 0);
  }

  get size(): number {
    return this.table.size;
  }

  /** The queues owned and not being released. */
  active(): ProcessQueue[] {
    return [...this.table.values()].filter((pq) => pq.state === 'active');
  }

  statuses(): QueueStatus[] {
    return [...this.table.values()].map((pq) => ({
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
  }

  /** RocketMQ's updateProcessQueueTableInRebalance for one topic: release what is no longer ours, add what is new. */
  async applyAllocation(topic: string, allocated: readonly MessageQueue[]) {
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
        if (await this.add(mq)) added.push(mq);
        else complete = false;
      });
    await Promise.all([...releases, ...additions]);
    const changed = added.length > 0 || removed.length > 0;
    if (changed) {
      this.limits = limitsFromOptions(this.deps.options, this.table.size);
      this.deps.onAssignmentChanged();
    }
    // A queue re-assigned while it was still being released is added on the next pass.
    if ([...wanted.keys()].some((key) => !this.table.has(key))) complete = false;
    return { changed, complete, added, removed };
  }

  /** Releases the queues of topics no longer subscribed. */
  async dropUnsubscribed(topics: ReadonlySet<string>): Promise<void> {
    const stale = this.active().filter((pq) => !topics.has(pq.mq.topic));
    await Promise.all(stale.map((pq) => this.release(pq, Date.now() + this.releaseBoundMs())));
  }

  /** Releases every queue, draining until the deadline (stop). */
  releaseAll(deadline: number): Promise<ReleaseReport[]> {
    return Promise.all([...this.table.values()].map((pq) => this.release(pq, deadline)));
  }

  /** Drops every queue at once, committing nothing (a simulated crash). */
  dropAll(reason: Error): void {
    for (const pq of [...this.table.values()]) {
      this.deps.consume.abortRunning(new Set([pq]), reason);
      this.discard(pq);
    }
  }

  /** Copies the consume path's progress into the store and persists every active queue. */
  async persistOwned(): Promise<void> {
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
      this.deps.events.emit('consumer.error', { group: this.deps.group, where: 'persist', error: toError(error) });
    }
  }

  /**
   * RESET_CONSUMER_CLIENT_OFFSET: drop the affected process queues (their cached and running messages no longer
   * count), store the new offsets as explicit resets, and rebalance so the queues are pulled again from them.
   */
  async resetOffsets(entries: ReadonlyArray<{ readonly mq: MessageQueue; readonly offset: number }>): Promise<void> {
    for (const { mq } of entries) {
      const pq = this.table.get(mqKey(mq));
      if (pq) this.discard(pq);
    }
    const { offsetStore } = this.deps;
    for (const { mq, offset } of entries) offsetStore.reset(mq, offset);
    try {
      await offsetStore.persist(entries.map((e) => e.mq));
    } finally {
      for (const { mq } of entries) offsetStore.remove(mq);
      this.deps.requestRebalance();
    }
  }

  /** How long a released queue waits for its running calls: ORDERLY waits for its batch up to RocketMQ's 20 s. */
  private releaseBoundMs(): number {
    return this.deps.options.consumeMode === 'ORDERLY' ? this.deps.profile.lockForceReleaseMs : this.deps.profile.drainTimeoutMs;
  }

  /** New queue: lock it (under locks), compute where to start, create its ProcessQueue, start pulling. */
  private async add(mq: MessageQueue): Promise<boolean> {
    const { deps } = this;
    const subscription = deps.subscriptions.get(mq.topic);
    if (!subscription || !deps.isRunning()) return false;
    // Under locks the queue is taken only once its previous owner unlocked it (after draining and persisting), or
    // its lock expired; the offset is read after that, so it is the previous owner's final one.
    const lockedAt = deps.lockManager ? await deps.lockManager.lock(mq) : undefined;
    if (deps.lockManager && lockedAt === undefined) return false;
    let offset: number;
    try {
      offset = await computeStartOffset(mq, deps.options, deps.offsetStore, deps.brokerOffsets);
    } catch (error) {
      deps.events.emit('consumer.error', { group: deps.group, where: 'start-offset', error: toError(error), mq });
      return false;
    }
    if (!deps.isRunning() || this.table.has(mqKey(mq))) return false;
    const pq = new ProcessQueue(mq, subscription, offset);
    pq.committedOffset = offset;
    if (lockedAt !== undefined) deps.lockManager?.markLocked(pq, lockedAt);
    deps.offsetStore.update(mq, offset, { increaseOnly: false });
    this.table.set(pq.key, pq);
    this.startLoop(pq);
    return true;
  }

  private startLoop(pq: ProcessQueue): void {
    const { deps } = this;
    const locks = deps.lockManager;
    const loop = new PullLoop(pq, {
      group: deps.group,
      options: deps.options,
      profile: deps.profile,
      puller: deps.puller,
      consume: deps.consume,
      budget: deps.budget,
      events: deps.events,
      limits: () => this.limits,
      whenRunning: deps.whenRunning,
      lockValid: locks ? (q) => locks.isValid(q) : undefined,
      offsetIllegal: (q, next) => this.offsetIllegal(q, next),
    });
    this.loops.set(pq.key, loop.start());
  }

  /**
   * Drain-aware release: stop pulling (abandoning the long poll), forget waiting work, wait for running handler
   * calls until the deadline, commit what finished, unlock, then remove the queue.
   */
  private async release(pq: ProcessQueue, deadline: number): Promise<ReleaseReport> {
    const { deps } = this;
    const started = Date.now();
    pq.beginDrain();
    this.stopLoop(pq);
    deps.consume.discardQueued(pq);
    const drained = await waitUntil(pq.waitForIdleHandlers(), deadline);
    const abandoned = pq.inflight;
    if (abandoned > 0) deps.consume.abortRunning(new Set([pq]), new Error(`queue ${mqLabel(pq.mq)} released before its handler finished`));
    const offset = pq.committableOffset();
    if (offset > pq.committedOffset) pq.committedOffset = offset;
    if (pq.committedOffset >= 0) deps.offsetStore.update(pq.mq, pq.committedOffset, { increaseOnly: true });
    pq.drop();
    deps.budget.release(pq.clear());
    try {
      await deps.offsetStore.persist([pq.mq]);
    } catch (error) {
      deps.events.emit('consumer.error', { group: deps.group, where: 'persist-on-release', error: toError(error), mq: pq.mq });
    }
    deps.offsetStore.remove(pq.mq);
    if (deps.lockManager) await deps.lockManager.unlock([pq.mq]);
    if (this.table.get(pq.key) === pq) this.table.delete(pq.key);
    const report: ReleaseReport = { mq: pq.mq, offset: pq.committedOffset, drained, abandoned, durationMs: Date.now() - started };
    deps.events.emit('consumer.queue-released', { group: deps.group, ...report });
    return report;
  }

  /** RocketMQ's OFFSET_ILLEGAL repair: take the broker's offset as an explicit reset, drop the queue, rebalance. */
  private async offsetIllegal(pq: ProcessQueue, nextOffset: number): Promise<void> {
    const { offsetStore, events, group } = this.deps;
    this.discard(pq);
    offsetStore.reset(pq.mq, nextOffset);
    try {
      await offsetStore.persist([pq.mq]);
    } catch (error) {
      events.emit('consumer.error', { group, where: 'offset-illegal-persist', error: toError(error), mq: pq.mq });
    }
    offsetStore.remove(pq.mq);
    this.deps.requestRebalance();
  }

  /** Drops a queue without draining or committing: its cached and running messages no longer count. */
  private discard(pq: ProcessQueue): void {
    pq.drop();
    this.stopLoop(pq);
    this.deps.consume.discardQueued(pq);
    this.deps.budget.release(pq.clear());
    if (this.table.get(pq.key) === pq) this.table.delete(pq.key);
  }

  private stopLoop(pq: ProcessQueue): void {
    this.loops.get(pq.key)?.unsubscribe();
    this.loops.delete(pq.key);
  }
}
