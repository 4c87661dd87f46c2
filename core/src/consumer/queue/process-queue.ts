import type { ProcessQueueState } from '../../model/consumer-status';
import { mqKey, type MessageQueue } from '../../model/message-queue';
import type { MessageRecord } from '../../model/message';
import type { SubscriptionData } from '../../model/subscription';
import type { TopicCounters } from './consume-stats';
import { childController } from '../../util/abort';
import { deferred, type Deferred } from '../../util/deferred';
import type { Codec } from '../../spi/codec';
import type { QueueProgress } from '../progress/consume-progress';

export type { ProcessQueueState } from '../../model/consumer-status';

/**
 * RocketMQ's ProcessQueue for one owned queue: the messages pulled and not yet finished, in offset order, with
 * the counts flow control reads. Pulled batches arrive in increasing offset order, so instead of Java's TreeMap
 * this keeps a window (offsets, sizes, done flags) indexed by a sequence number each message carries: put,
 * mark-done and the committable-offset query are all O(1) amortised.
 *
 * The committable offset is the smallest offset still in flight, or the last offset + 1 when nothing is (the
 * min-in-flight rule: at-least-once with out-of-order completion inside a queue). ConsumeProgress turns it into
 * the queue's progress; this class only answers the question.
 *
 * Cancellation is one AbortSignal, a child of the group's: aborting it stops the pull loop, ends the outstanding
 * long poll, keeps waiting work from starting and wakes every wait of this queue. A release is an abort, then a
 * wait for idle handlers.
 */
export class ProcessQueue {
  readonly key: string;
  /** Messages cached and not finished. */
  msgCount = 0;
  /** Body bytes of those messages. */
  msgBytes = 0;
  /** Offset of the last message put, -1 before the first. */
  queueOffsetMax = -1;
  /** Where the next pull starts. */
  nextOffset: number;
  /** The broker's max offset seen in the last pull answer (for lag). */
  brokerMaxOffset = -1;
  /** Handler calls of this queue that started and have not finished. */
  inflight = 0;
  /** The consume service's cache of the payload codec for this queue's messages (not for retry queues). */
  codec: Codec | undefined;
  /** Broker queue lock held (ORDERLY and exclusiveHandoff); see QueueLockManager. */
  locked = false;
  lastLockTimestamp = 0;
  /** When the last pull answer came (RocketMQ's ProcessQueue starts both timestamps at its creation). */
  lastPullTimestamp = Date.now();
  /** When the last handler call of this queue finished (to a tenth of a second). */
  lastConsumeTimestamp = this.lastPullTimestamp;
  /** This queue's topic counters in the group's ConsumeStats, cached by the pull loop. */
  counters: TopicCounters | undefined;
  private readonly controller: AbortController;
  /** Mirrors the signal for the hot path (a plain field read, not the signal's getter). */
  private running = true;
  private isDropped = false;

  private offsets: number[] = [];
  private sizes: number[] = [];
  private done: boolean[] = [];
  private head = 0;
  /** Sequence number of offsets[0]. */
  private base = 0;
  private capacityWaiter: Deferred | undefined;
  private capacityMarks = { count: 0, bytes: 0, span: 0 };
  private idleWaiter: Deferred | undefined;

  constructor(
    readonly mq: MessageQueue,
    readonly subscription: SubscriptionData,
    /** The queue's progress, written only by ConsumeProgress. */
    readonly progress: QueueProgress,
    startOffset: number,
    parent: AbortSignal,
  ) {
    this.key = mqKey(mq);
    this.nextOffset = startOffset;
    this.controller = childController(parent);
    const signal = this.controller.signal;
    if (signal.aborted) this.running = false;
    else signal.addEventListener('abort', () => this.stopped(), { once: true });
  }

  /** 'active' until aborted, 'draining' while a release waits for running calls, 'dropped' once removed. */
  get state(): ProcessQueueState {
    return this.isDropped ? 'dropped' : this.running ? 'active' : 'draining';
  }

  /** Neither released nor stopped with its group: pull, and start its waiting work. */
  get active(): boolean {
    return this.running;
  }

  /** Removed from its table: results of its calls no longer count. */
  get dropped(): boolean {
    return this.isDropped;
  }

  /** Aborted when the queue is released, dropped, or its group stops. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Stops pulling and starting work: ends the long poll and wakes a flow-controlled loop so it can exit. */
  abort(): void {
    this.controller.abort();
  }

  /** Aborted and done with: its results no longer count (they are not committed). */
  drop(): void {
    this.abort();
    this.isDropped = true;
    this.idleWaiter?.resolve();
    this.idleWaiter = undefined;
  }

  private stopped(): void {
    this.running = false;
    this.signalCapacity();
  }

  /** Offset span of what is cached: last put - first unfinished; 0 when empty. */
  get maxSpan(): number {
    return this.msgCount === 0 ? 0 : this.queueOffsetMax - this.offsets[this.head]!;
  }

  /**
   * Adds pulled records; returns the accepted ones with their sequence numbers (records at or below the last
   * offset put are duplicates of a retried pull and are skipped, as Java's TreeMap would replace them).
   */
  put(records: readonly MessageRecord[], accept: (record: MessageRecord, seq: number) => void): number {
    let bytes = 0;
    for (let i = 0; i < records.length; i++) {
      const record = records[i]!;
      if (record.queueOffset <= this.queueOffsetMax) continue;
      const seq = this.base + this.offsets.length;
      this.offsets.push(record.queueOffset);
      this.sizes.push(record.body.length);
      this.done.push(false);
      this.queueOffsetMax = record.queueOffset;
      bytes += record.body.length;
      this.msgCount++;
      accept(record, seq);
    }
    this.msgBytes += bytes;
    return bytes;
  }

  /**
   * Marks messages finished by sequence number and returns the bytes released. Messages already finished are
   * ignored, so a late result after a timeout sweep cannot count twice.
   */
  remove(seqs: ArrayLike<number>): number {
    return this.removeRange(seqs, 0, seqs.length, (s) => s);
  }

  /** remove() over items[start, end) that carry their sequence number (a call's slice of a pulled batch). */
  removeItems(items: ArrayLike<{ readonly seq: number }>, start: number, end: number): number {
    return this.removeRange(items, start, end, (item) => item.seq);
  }

  private removeRange<T>(items: ArrayLike<T>, start: number, end: number, seqOf: (item: T) => number): number {
    let bytes = 0;
    for (let i = start; i < end; i++) {
      const index = seqOf(items[i]!) - this.base;
      if (index < this.head || index >= this.done.length || this.done[index]) continue;
      this.done[index] = true;
      bytes += this.sizes[index]!;
      this.msgCount--;
    }
    if (bytes === 0 && end <= start) return 0;
    this.msgBytes -= bytes;
    while (this.head < this.done.length && this.done[this.head]) this.head++;
    this.compact();
    this.removed();
    return bytes;
  }

  /** remove() for one message, without an array (the per-message handler path). */
  removeOne(seq: number): number {
    const index = seq - this.base;
    if (index < this.head || index >= this.done.length || this.done[index]) return 0;
    this.done[index] = true;
    const bytes = this.sizes[index]!;
    this.msgCount--;
    this.msgBytes -= bytes;
    if (index === this.head) {
      while (this.head < this.done.length && this.done[this.head]) this.head++;
      this.compact();
    }
    this.removed();
    return bytes;
  }

  /** After messages finished: wake a flow-controlled loop, and a release waiting for an empty queue. */
  private removed(): void {
    this.signalCapacity();
    if (this.msgCount === 0 && this.idleWaiter) {
      this.idleWaiter.resolve();
      this.idleWaiter = undefined;
    }
  }

  /** The lock is held and was granted less than `expiryMs` ago (RocketMQ's isLockExpired, inverted). */
  lockValid(expiryMs: number, now = Date.now()): boolean {
    return this.locked && now - this.lastLockTimestamp <= expiryMs;
  }

  /** True while the message with this sequence number is cached and unfinished. */
  contains(seq: number): boolean {
    const index = seq - this.base;
    return index >= this.head && index < this.done.length && !this.done[index];
  }

  /** The smallest offset still in flight, or the last offset + 1; -1 before anything was put. */
  committableOffset(): number {
    if (this.head < this.offsets.length) return this.offsets[this.head]!;
    return this.queueOffsetMax < 0 ? -1 : this.queueOffsetMax + 1;
  }

  /**
   * Resolves once the cache is back at or under these marks (or the queue is aborted), for a flow-controlled pull
   * loop. The marks are low watermarks, so one finished message does not wake the loop for a one-message pull.
   */
  waitForCapacity(marks: { count: number; bytes: number; span: number }): Promise<void> {
    if (!this.running || this.belowMarks(marks)) return Promise.resolve();
    this.capacityMarks = marks;
    this.capacityWaiter ??= deferred();
    return this.capacityWaiter.promise;
  }

  private belowMarks(marks: { count: number; bytes: number; span: number }): boolean {
    return this.msgCount <= marks.count && this.msgBytes <= marks.bytes && this.maxSpan <= marks.span;
  }

  /** Resolves when no handler call of this queue is running. */
  waitForIdleHandlers(): Promise<void> {
    if (this.inflight === 0) return Promise.resolve();
    this.idleWaiter ??= deferred();
    return this.idleWaiter.promise;
  }

  /** Called by the consume service when a handler call of this queue settles. */
  handlerFinished(): void {
    this.inflight--;
    if (this.inflight === 0 && this.idleWaiter) {
      this.idleWaiter.resolve();
      this.idleWaiter = undefined;
    }
  }

  /** Drops everything cached (used before a reset re-pulls from a new offset); returns the bytes released. */
  clear(): number {
    const bytes = this.msgBytes;
    this.base += this.offsets.length;
    this.offsets = [];
    this.sizes = [];
    this.done = [];
    this.head = 0;
    this.msgCount = 0;
    this.msgBytes = 0;
    this.signalCapacity();
    return bytes;
  }

  private signalCapacity(): void {
    const waiter = this.capacityWaiter;
    if (waiter && (!this.running || this.belowMarks(this.capacityMarks))) {
      this.capacityWaiter = undefined;
      waiter.resolve();
    }
  }

  /** Drops the finished prefix once it dominates the window, keeping the arrays small. */
  private compact(): void {
    if (this.head < 1024 || this.head * 2 < this.offsets.length) return;
    this.offsets.splice(0, this.head);
    this.sizes.splice(0, this.head);
    this.done.splice(0, this.head);
    this.base += this.head;
    this.head = 0;
  }
}
