import { mqKey, mqLabel, type MessageQueue } from '../../model/message-queue';
import type { SubscriptionData } from '../../model/subscription';
import { waitUntil } from '../../util/wait-until';
import type { GroupContext } from './group-context';
import { reportError } from '../../events/report-error';
import { ProcessQueue } from './process-queue';
import { PullLoop, limitsFromOptions, type PullLimits } from './pull-loop';
import { RouteArrivals } from './route-arrivals';
import { queueStatus } from './queue-status';
import type { QueueTableHost, QueueTableParts } from './queue-table-parts';
import type { QueueStatus, ReleaseReport } from '../../model/consumer-status';

export type { QueueTableHost, QueueTableParts } from './queue-table-parts';

/**
 * RocketMQ's processQueueTable with what happens to its entries: a queue is added (locked first under locks,
 * its start offset computed, its pull loop started) and released (aborted, drained, committed, unlocked), and the
 * whole table is persisted, reset or dropped.
 */
export class ProcessQueueTable {
  private readonly table = new Map<string, ProcessQueue>();
  private readonly loops = new Map<ProcessQueue, Promise<void>>();
  private readonly arrivals = new RouteArrivals();
  /**
   * Offsets queues start at when next added, winning over the start offset being computed: a pull consumer's seek,
   * and a pushed reset while it is being stored (a rebalance meanwhile reads the old offset from the store).
   */
  private readonly seeks = new Map<string, number>();
  private limits: PullLimits;

  constructor(
    private readonly ctx: GroupContext,
    private readonly parts: QueueTableParts,
    private readonly host: QueueTableHost,
  ) {
    this.limits = limitsFromOptions(ctx.options, 0);
  }

  get size(): number {
    return this.table.size;
  }

  /** The queues owned and not being released. */
  active(): ProcessQueue[] {
    return [...this.table.values()].filter((pq) => pq.active);
  }

  statuses(): QueueStatus[] {
    return [...this.table.values()].map(queueStatus);
  }

  /** RocketMQ's updateProcessQueueTableInRebalance for one topic: release what is no longer ours, add what is new. */
  async applyAllocation(
    topic: string,
    allocated: readonly MessageQueue[],
    mqAll: readonly MessageQueue[] = allocated,
    routeMovedAt?: number,
  ) {
    const wanted = new Map(allocated.map((mq) => [mqKey(mq), mq]));
    const routed = new Set(mqAll.map(mqKey));
    const removed: MessageQueue[] = [];
    const releases: Promise<unknown>[] = [];
    for (const pq of this.table.values()) {
      if (pq.mq.topic !== topic || wanted.has(pq.key) || !pq.active) continue;
      removed.push(pq.mq);
      // A queue no longer routed at all: its broker is gone (crashed, partitioned), not handed to another member.
      releases.push(this.release(pq, Date.now() + this.releaseBoundMs(), !routed.has(pq.key)));
    }
    // Queues this member remembers that are now another member's: their progress is the new owner's.
    this.parts.progress.forget(mqAll.filter((mq) => !wanted.has(mqKey(mq))));
    for (const mq of mqAll) if (!wanted.has(mqKey(mq))) this.seeks.delete(mqKey(mq));
    const graceMs = this.ctx.profile.routeArrivalGraceMs;
    const arriving = this.arrivals.observe(topic, mqAll, graceMs);
    // Under broker locks two members never consume one queue at once: the lock is the handoff, no grace needed.
    const moving = routeMovedAt !== undefined && !this.parts.locks && Date.now() - routeMovedAt < graceMs;
    const added: MessageQueue[] = [];
    let complete = true;
    const additions = [...wanted.values()]
      .filter((mq) => !this.table.has(mqKey(mq)))
      .filter((mq) => {
        // Last consumed by another member, and either just routed again (its offer of the offset comes first) or
        // moved here by a route change that member may not have seen yet (it releases the queue once it does): the
        // pass stays unbalanced, so a retry takes the queue once the grace is over. See RouteArrivals, RouteMoves.
        const wait = (moving || arriving.has(mqKey(mq))) && this.parts.progress.remembered(mq) < 0;
        if (wait) complete = false;
        return !wait;
      })
      .map(async (mq) => {
        if (await this.add(mq)) added.push(mq);
        else complete = false;
      });
    await Promise.all([...releases, ...additions]);
    const changed = added.length > 0 || removed.length > 0;
    if (changed) {
      this.limits = limitsFromOptions(this.ctx.options, this.table.size);
      this.host.onAssignmentChanged();
    }
    // A queue re-assigned while it was still being released is added on the next pass.
    if ([...wanted.keys()].some((key) => !this.table.has(key))) complete = false;
    return { changed, complete, added, removed };
  }

  /**
   * Before a topic's queues are allocated: what this member consumed of queues it released and that are routed
   * again goes back to the store first (see ConsumeProgress.offerBack); after a route change, the progress of the
   * topic's owned queues too (a promoted master starts with the offsets its old master last copied to it).
   * Resolves false when an offer failed and is to be retried before this member allocates the topic: allocating
   * would forget the queues that go to other members, and with them the offsets those members wait for.
   */
  async beforeAllocation(topic: string, mqAll: readonly MessageQueue[], routeChanged: boolean): Promise<boolean> {
    const offered = await this.parts.progress.offerBack(mqAll, this.ctx.profile.routeArrivalGraceMs);
    // Every offset, changed or not: the broker behind a queue may be another, which never received them.
    if (routeChanged)
      await this.parts.progress.persist(
        this.active().filter((pq) => pq.mq.topic === topic),
        'persist-on-route-change',
        { unchanged: true },
      );
    return offered;
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
      this.parts.consume.abandon(new Set([pq]), reason);
      this.discard(pq);
    }
  }

  /** The periodic commit of every active queue. */
  async persistOwned(): Promise<void> {
    await this.parts.progress.persist(this.active());
  }

  /**
   * RESET_CONSUMER_CLIENT_OFFSET: drop the affected process queues (their cached and running messages no longer
   * count), store the new offsets as explicit resets, and rebalance so the queues are pulled again from them.
   */
  async resetOffsets(entries: ReadonlyArray<{ readonly mq: MessageQueue; readonly offset: number }>): Promise<void> {
    for (const { mq, offset } of entries) {
      // Before the store has the new offset, a rebalance running meanwhile would take the queue again at the old
      // one (CI saw one member's queues never moved back); the next rebalance drops the entries of queues it does
      // not allocate here.
      this.seeks.set(mqKey(mq), offset);
      const pq = this.table.get(mqKey(mq));
      if (pq) this.discard(pq);
    }
    try {
      await this.parts.progress.reset(entries);
    } finally {
      this.host.requestRebalance();
    }
  }

  /**
   * A pull consumer's seek: the queue drops what it cached (nothing is persisted) and pulls from `offset`; a queue
   * still being added starts there, whatever its stored offset says. Synchronous, so a seek right after an assign
   * always wins.
   */
  seek(mq: MessageQueue, offset: number): void {
    const key = mqKey(mq);
    const pq = this.table.get(key);
    if (!pq?.active) {
      this.seeks.set(key, offset);
      return;
    }
    this.discard(pq);
    this.create(mq, pq.subscription, offset, true);
  }

  /** How long a released queue waits for its running calls: ORDERLY waits for its batch up to RocketMQ's 20 s. */
  private releaseBoundMs(): number {
    return this.ctx.options.consumeMode === 'ORDERLY'
      ? this.ctx.profile.lockForceReleaseMs
      : this.ctx.profile.drainTimeoutMs;
  }

  /** New queue: lock it (under locks), compute where to start, create its ProcessQueue, start pulling. */
  private async add(mq: MessageQueue): Promise<boolean> {
    const { ctx, parts } = this;
    const subscription = parts.subscriptions.get(mq.topic);
    if (!subscription || ctx.signal.aborted) return false;
    // Under locks the queue is taken only once its previous owner unlocked it (after draining and persisting), or
    // its lock expired; the offset is read after that, so it is the previous owner's final one.
    const lockedAt = parts.locks ? await parts.locks.lock(mq) : undefined;
    if (parts.locks && lockedAt === undefined) return false;
    let offset: number;
    try {
      offset = await parts.startOffset(mq);
    } catch (error) {
      reportError(ctx, 'start-offset', error, mq);
      return false;
    }
    if (ctx.signal.aborted || this.table.has(mqKey(mq))) return false;
    const seek = this.seeks.get(mqKey(mq));
    this.seeks.delete(mqKey(mq));
    const pq = this.create(mq, subscription, seek ?? offset, seek !== undefined);
    if (lockedAt !== undefined) parts.locks?.markLocked(pq, lockedAt);
    return true;
  }

  private create(mq: MessageQueue, subscription: SubscriptionData, offset: number, sought = false): ProcessQueue {
    const progress = this.parts.progress.begin(mq, offset, sought);
    const pq = new ProcessQueue(mq, subscription, progress, offset, this.ctx.signal);
    this.table.set(pq.key, pq);
    this.startLoop(pq);
    return pq;
  }

  private startLoop(pq: ProcessQueue): void {
    const { ctx, parts } = this;
    const locks = parts.locks;
    const loop = new PullLoop(ctx, pq, parts.puller, parts.consume, parts.progress, {
      limits: () => this.limits,
      whenRunning: () => this.host.whenRunning(pq),
      lockValid: locks ? (q) => locks.isValid(q) : undefined,
      offsetIllegal: (q, next) => this.offsetIllegal(q, next),
    });
    const running = loop.run().finally(() => this.loops.delete(pq));
    this.loops.set(pq, running);
  }

  /**
   * Drain-aware release: abort the queue (its pull loop stops and its long poll ends), forget waiting work, wait
   * for running handler calls until the deadline, commit what finished, unlock, then remove the queue.
   */
  private async release(pq: ProcessQueue, deadline: number, brokerGone = false): Promise<ReleaseReport> {
    const { ctx, parts } = this;
    const started = Date.now();
    pq.abort();
    parts.consume.discardQueued(pq);
    const drained = await waitUntil(pq.waitForIdleHandlers(), deadline);
    const abandoned = pq.inflight;
    if (abandoned > 0)
      parts.consume.abandon(new Set([pq]), new Error(`queue ${mqLabel(pq.mq)} released before its handler finished`));
    parts.work.close(pq, true);
    await parts.progress.finish(pq, { brokerGone, confirm: parts.locks !== undefined });
    const loop = this.loops.get(pq);
    if (loop) await waitUntil(loop, Math.max(deadline, Date.now() + ctx.profile.requestTimeoutMs));
    if (parts.locks) await parts.locks.unlock([pq.mq]);
    if (this.table.get(pq.key) === pq) this.table.delete(pq.key);
    const report: ReleaseReport = {
      mq: pq.mq,
      offset: pq.progress.committable,
      drained,
      abandoned,
      durationMs: Date.now() - started,
    };
    ctx.events.emit('consumer.queue-released', { group: ctx.group, ...report });
    return report;
  }

  /** RocketMQ's OFFSET_ILLEGAL repair: take the broker's offset as an explicit reset, drop the queue, rebalance. */
  private async offsetIllegal(pq: ProcessQueue, nextOffset: number): Promise<void> {
    // As for a pushed reset: a rebalance before the write lands takes the queue at this offset, not the old one.
    this.seeks.set(pq.key, nextOffset);
    this.discard(pq);
    try {
      await this.parts.progress.reset([{ mq: pq.mq, offset: nextOffset }]);
    } catch (error) {
      reportError(this.ctx, 'offset-illegal-persist', error, pq.mq);
    }
    this.host.requestRebalance();
  }

  /** Drops a queue without draining or committing: its cached and running messages no longer count. */
  private discard(pq: ProcessQueue): void {
    this.parts.work.close(pq, false);
    this.parts.consume.discardQueued(pq);
    if (this.table.get(pq.key) === pq) this.table.delete(pq.key);
  }
}
