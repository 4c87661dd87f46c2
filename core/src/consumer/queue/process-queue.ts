import type { ProcessQueueState } from '../../model/consumer-status';
import { mqKey, type MessageQueue } from '../../model/message-queue';
import type { MessageRecord } from '../../model/message';
import type { SubscriptionData } from '../../model/subscription';
import type { TopicCounters } from './consume-stats';
import { childController } from '../../util/abort';
import { deferred, type Deferred } from '../../util/deferred';
import type { QueueProgress } from '../progress/consume-progress';
import { OffsetWindow } from './offset-window';

export type { ProcessQueueState } from '../../model/consumer-status';

/**
 * RocketMQ's ProcessQueue for one owned queue: the messages pulled and not yet finished (an OffsetWindow), with
 * the counts flow control reads, its pull position, lock and timestamps. Every field is its own (#private): the
 * pull loop, the lock manager and the consume side change it only through the methods named for what happened.
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
  readonly #window = new OffsetWindow();
  #nextOffset: number;
  #brokerMaxOffset = -1;
  #inflight = 0;
  #locked = false;
  #lastLockTimestamp = 0;
  #lastPullTimestamp = Date.now();
  #lastConsumeTimestamp = this.#lastPullTimestamp;
  #counters: TopicCounters | undefined;
  readonly #controller: AbortController;
  /** Mirrors the signal for the hot path (a plain field read, not the signal's getter). */
  #running = true;
  #dropped = false;

  #capacityWaiter: Deferred | undefined;
  #capacityMarks = { count: 0, bytes: 0, span: 0 };
  #idleWaiter: Deferred | undefined;

  constructor(
    readonly mq: MessageQueue,
    readonly subscription: SubscriptionData,
    /** The queue's progress, written only by ConsumeProgress. */
    readonly progress: QueueProgress,
    startOffset: number,
    parent: AbortSignal,
  ) {
    this.key = mqKey(mq);
    this.#nextOffset = startOffset;
    this.#controller = childController(parent);
    const signal = this.#controller.signal;
    if (signal.aborted) this.#running = false;
    else signal.addEventListener('abort', () => this.#stopped(), { once: true });
  }

  /** Messages cached and not finished. */
  get msgCount(): number {
    return this.#window.count;
  }
  /** Body bytes of those messages. */
  get msgBytes(): number {
    return this.#window.bytes;
  }
  /** Offset of the last message put, -1 before the first. */
  get queueOffsetMax(): number {
    return this.#window.maxOffset;
  }
  /** Where the next pull starts (the pull loop moves it with `pulledTo`). */
  get nextOffset(): number {
    return this.#nextOffset;
  }
  /** The broker's max offset seen in the last pull answer (for lag). */
  get brokerMaxOffset(): number {
    return this.#brokerMaxOffset;
  }
  /** Handler calls of this queue that started and have not finished. */
  get inflight(): number {
    return this.#inflight;
  }
  /** Broker queue lock held (ORDERLY and exclusiveHandoff); see QueueLockManager. */
  get locked(): boolean {
    return this.#locked;
  }
  get lastLockTimestamp(): number {
    return this.#lastLockTimestamp;
  }
  /** When the last pull answer came (RocketMQ's ProcessQueue starts both timestamps at its creation). */
  get lastPullTimestamp(): number {
    return this.#lastPullTimestamp;
  }
  /** When the last handler call of this queue finished (to a tenth of a second). */
  get lastConsumeTimestamp(): number {
    return this.#lastConsumeTimestamp;
  }

  /** This queue's topic counters in the group's ConsumeStats, looked up once. */
  counters(stats: { counters(topic: string): TopicCounters }): TopicCounters {
    this.#counters ??= stats.counters(this.mq.topic);
    return this.#counters;
  }

  /** A pull answer came at `now`: the broker's max offset for lag. */
  answered(brokerMaxOffset: number, now: number): void {
    this.#brokerMaxOffset = brokerMaxOffset;
    this.#lastPullTimestamp = now;
  }

  /** The next pull starts at `offset` (the pull loop's, after an answer). */
  pullFrom(offset: number): void {
    this.#nextOffset = offset;
  }

  /** The broker granted (or renewed) this queue's lock at `now`. */
  lockGranted(now: number): void {
    this.#locked = true;
    this.#lastLockTimestamp = now;
  }

  /** The broker no longer grants this queue's lock. */
  lockLost(): void {
    this.#locked = false;
  }

  /** A handler call of this queue starts: a release waits for it (`waitForIdleHandlers`). */
  callStarted(): void {
    this.#inflight++;
  }

  /** Messages of this queue were consumed (handled, or taken by a pull consumer's poll) at `now`. */
  consumedAt(now: number): void {
    this.#lastConsumeTimestamp = now;
  }

  /** A handler call of this queue finished and its result was processed. */
  callFinished(): void {
    this.#inflight--;
    if (this.#inflight === 0 && this.#idleWaiter) {
      this.#idleWaiter.resolve();
      this.#idleWaiter = undefined;
    }
  }

  /** 'active' until aborted, 'draining' while a release waits for running calls, 'dropped' once removed. */
  get state(): ProcessQueueState {
    return this.#dropped ? 'dropped' : this.#running ? 'active' : 'draining';
  }

  /** Neither released nor stopped with its group: pull, and start its waiting work. */
  get active(): boolean {
    return this.#running;
  }

  /** Removed from its table: results of its calls no longer count. */
  get dropped(): boolean {
    return this.#dropped;
  }

  /** Aborted when the queue is released, dropped, or its group stops. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Stops pulling and starting work: ends the long poll and wakes a flow-controlled loop so it can exit. */
  abort(): void {
    this.#controller.abort();
  }

  /** Aborted and done with: its results no longer count (they are not committed). */
  drop(): void {
    this.abort();
    this.#dropped = true;
    this.#idleWaiter?.resolve();
    this.#idleWaiter = undefined;
  }

  #stopped(): void {
    this.#running = false;
    this.#signalCapacity();
  }

  /** Offset span of what is cached: last put - first unfinished; 0 when empty. */
  get maxSpan(): number {
    return this.#window.span;
  }

  /**
   * Adds pulled records; returns their bytes and hands each accepted one to `accept` with its sequence number
   * (a retried pull's repeats are skipped). The queue room's intake is its only caller.
   */
  put(records: readonly MessageRecord[], accept: (record: MessageRecord, seq: number) => void): number {
    return this.#window.put(records, accept);
  }

  /**
   * Marks messages finished by sequence number and returns the bytes released. Messages already finished are
   * ignored, so a late result after a timeout sweep cannot count twice.
   */
  remove(seqs: ArrayLike<number>): number {
    return this.#removedBytes(this.#window.remove(seqs, 0, seqs.length, (s) => s));
  }

  /** remove() over items[start, end) that carry their sequence number (a call's slice of a pulled batch). */
  removeItems(items: ArrayLike<{ readonly seq: number }>, start: number, end: number): number {
    return this.#removedBytes(this.#window.remove(items, start, end, (item) => item.seq));
  }

  /** remove() for one message, without an array (the per-message handler path). */
  removeOne(seq: number): number {
    return this.#removedBytes(this.#window.removeOne(seq));
  }

  #removedBytes(bytes: number): number {
    if (bytes < 0) return 0;
    this.#removed();
    return bytes;
  }

  /** After messages finished: wake a flow-controlled loop, and a release waiting for an empty queue. */
  #removed(): void {
    this.#signalCapacity();
    if (this.#window.count === 0 && this.#idleWaiter) {
      this.#idleWaiter.resolve();
      this.#idleWaiter = undefined;
    }
  }

  /** The lock is held and was granted less than `expiryMs` ago (RocketMQ's isLockExpired, inverted). */
  lockValid(expiryMs: number, now = Date.now()): boolean {
    return this.locked && now - this.lastLockTimestamp <= expiryMs;
  }

  /** True while the message with this sequence number is cached and unfinished. */
  contains(seq: number): boolean {
    return this.#window.contains(seq);
  }

  /** The smallest offset still in flight, or the last offset + 1; -1 before anything was put. */
  committableOffset(): number {
    return this.#window.committableOffset();
  }

  /**
   * Resolves once the cache is back at or under these marks (or the queue is aborted), for a flow-controlled pull
   * loop. The marks are low watermarks, so one finished message does not wake the loop for a one-message pull.
   */
  waitForCapacity(marks: { count: number; bytes: number; span: number }): Promise<void> {
    if (!this.#running || this.#belowMarks(marks)) return Promise.resolve();
    this.#capacityMarks = marks;
    this.#capacityWaiter ??= deferred();
    return this.#capacityWaiter.promise;
  }

  #belowMarks(marks: { count: number; bytes: number; span: number }): boolean {
    return this.#window.count <= marks.count && this.#window.bytes <= marks.bytes && this.maxSpan <= marks.span;
  }

  /** Resolves when no handler call of this queue is running. */
  waitForIdleHandlers(): Promise<void> {
    if (this.#inflight === 0) return Promise.resolve();
    this.#idleWaiter ??= deferred();
    return this.#idleWaiter.promise;
  }

  /** Drops everything cached (used before a reset re-pulls from a new offset); returns the bytes released. */
  clear(): number {
    const bytes = this.#window.clear();
    this.#signalCapacity();
    return bytes;
  }

  #signalCapacity(): void {
    const waiter = this.#capacityWaiter;
    if (waiter && (!this.#running || this.#belowMarks(this.#capacityMarks))) {
      this.#capacityWaiter = undefined;
      waiter.resolve();
    }
  }
}
