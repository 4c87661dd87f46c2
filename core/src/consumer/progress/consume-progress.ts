import { type MessageQueue } from '../../model/message-queue';
import type { OffsetStore } from '../../spi/offset-store';
import { reportError } from '../../events/report-error';
import type { EventBus } from '../../events/event-bus';
import { OffsetTable } from './offset-table';
import { ReleasedOffsets } from './released-offsets';

/** The writable state behind a queue's QueueProgress. */
interface ProgressRecord {
  committable: number;
  persisted: number;
  /** With manual commits: where consumption got to (committable follows it only at `commit`). */
  consumed: number;
  /** A pull consumer's queue: poll returned some of its messages, or the application sought it. */
  touched: boolean;
  /** Writes may store this queue's offset: always for push consumers, see `PullCommits` for pull consumers. */
  storable: boolean;
}

/** How ConsumeProgress reaches a QueueProgress's state; set once by the class, never exported from this file. */
let recordOf: (progress: QueueProgress) => ProgressRecord;

/**
 * One queue's progress, as the rest of the engine reads it (the handle a ProcessQueue carries). Only ConsumeProgress
 * writes it: the state is #private, and the one way to it (`recordOf`) stays inside this file. A field read, where a
 * table keyed by queue would cost a lookup per handler call.
 */
export class QueueProgress {
  readonly #record: ProgressRecord;

  /** @internal ConsumeProgress.begin makes them. */
  constructor(record: ProgressRecord) {
    this.#record = record;
  }

  static {
    recordOf = (progress) => progress.#record;
  }

  /**
   * The offset that may be committed: every message below it finished (RocketMQ's min-in-flight rule). It is not
   * a committed value: that is what the offset store acknowledged, `persisted`.
   */
  get committable(): number {
    return this.#record.committable;
  }

  /** The last committable offset the offset store acknowledged as written; -1 before any. */
  get persisted(): number {
    return this.#record.persisted;
  }
}

/**
 * What ConsumeProgress reads of a queue whose progress it keeps (the queue room's ProcessQueue): the handle `begin`
 * gave it, and the queue's own answer to "what is the smallest offset still in flight".
 */
export interface ProgressedQueue {
  readonly key: string;
  readonly mq: MessageQueue;
  /** Messages cached and not finished. */
  readonly msgCount: number;
  /** The handle `begin` returned for this queue. */
  readonly progress: QueueProgress;
  /** The smallest offset still in flight, or the last offset + 1; -1 before anything was cached. */
  committableOffset(): number;
}

/**
 * How a pull consumer's offsets reach the store. Only queues the application touched (polled from or sought, as
 * Java's lite pull consumer commits only queues whose consumer offset it set) are ever stored, so a queue assigned
 * and never read keeps whatever offset the store had: `'auto'` stores them at the periodic commit, `'manual'` once
 * `commit` made them committable, and only at or after that commit.
 */
export type PullCommits = 'auto' | 'manual';

export { REMEMBER_RELEASED_MS } from './released-offsets';

/**
 * The one owner of a group's consumer progress (docs/architecture.md#ownership-rules). The consume path reports
 * finished work here (`advance`), the pull loop reports ranges with nothing to consume (`skipTo`); this class alone
 * turns them into each queue's committable offset, and the offset store is its only way out: a periodic and a final
 * `persist`, and the commit a pull may carry (RocketMQ's piggy-backed commit). Pulls carry one only with the
 * broker's own store (with another store the broker must not receive commits at all) and only when it is not the
 * value the store already acknowledged. A broker applies a pull's commit on its pull thread pool, which can run it
 * after the final UPDATE_CONSUMER_OFFSET of a released queue (on its consumer-manage pool) and send the next owner
 * back one batch (seen on 5.3.3 with ORDERLY): where queues move under broker locks, the final commit is confirmed
 * (read back, written again while lower) before the unlock lets the next owner read it. Without pull commits, a
 * locked member killed between two persists made its successor replay up to a persist interval (5 s) of its work,
 * where Java's replays about a pull.
 */
export class ConsumeProgress {
  /**
   * The group's one offset table (the store keeps none): what was handed to the store per queue, whether it
   * acknowledged it, and the explicit lowering writes. Keyed by queue, not by record: resets and offers write queues
   * this member does not own, and a read before `begin` tells what the store already holds.
   */
  readonly #table: OffsetTable;
  readonly #released: ReleasedOffsets;
  constructor(
    private readonly ctx: { readonly group: string; readonly events: EventBus },
    store: OffsetStore,
    /** Pulls may carry the committable offset (RocketMQ's piggy-backed commit). */
    private readonly pullCommits: boolean,
    /**
     * Undefined for push consumers. A pull consumer stores only the queues it touched (see PullCommits); with
     * `'manual'` (no autoCommit) finished work moves `consumed` only, and the committable offset (what persists and
     * releases write) follows it at `commit`, so nothing the application has not committed is ever stored.
     */
    private readonly pull?: PullCommits,
  ) {
    this.#table = new OffsetTable(store);
    this.#released = new ReleasedOffsets(ctx, this.#table);
  }

  private get manualCommit(): boolean {
    return this.pull === 'manual';
  }

  /**
   * The offset the store holds for this queue, or -1 (RocketMQ's READ_FROM_STORE); rejects with the store's error.
   * Every read goes through here: the value read is what the table holds, so a queue that begins at it writes
   * nothing until it moves.
   */
  read(mq: MessageQueue): Promise<number> {
    return this.#table.read(mq);
  }

  /**
   * A newly owned queue starts at `offset`; a plain update, so a stale in-memory value cannot hold it back. A pull
   * consumer's sought queue begins `touched`.
   */
  begin(mq: MessageQueue, offset: number, touched = false): QueueProgress {
    this.#released.forget([mq]);
    this.#table.update(mq, offset, false);
    return new QueueProgress({
      committable: offset,
      persisted: -1,
      consumed: offset,
      touched,
      storable: this.pull === undefined || (touched && this.pull === 'auto'),
    });
  }

  #record(pq: ProgressedQueue): ProgressRecord {
    return recordOf(pq.progress);
  }

  /** A pull consumer's poll returned messages of this queue: its offset may be stored from now on. */
  touch(pq: ProgressedQueue): void {
    const progress = this.#record(pq);
    progress.touched = true;
    if (this.pull === 'auto') progress.storable = true;
  }

  /** After finished messages left the queue: the committable offset follows the smallest one still in flight. */
  advance(pq: ProgressedQueue): void {
    this.moveTo(this.#record(pq), pq.committableOffset());
  }

  private moveTo(progress: ProgressRecord, offset: number): void {
    if (offset > progress.consumed) progress.consumed = offset;
    if (!this.manualCommit && offset > progress.committable) progress.committable = offset;
  }

  /** Where consumption got to: the committable offset, or with manual commits what `commit` would store. */
  consumed(pq: ProgressedQueue): number {
    return this.#record(pq).consumed;
  }

  /**
   * A pull consumer's commit: each touched queue's committable offset becomes what was consumed, and is persisted
   * (the others are left alone). Resolves once the store acknowledged; rejects with the store's error.
   */
  async commit(pqs: readonly ProgressedQueue[]): Promise<void> {
    const touched = pqs.filter((pq) => this.#record(pq).touched);
    for (const pq of touched) {
      const progress = this.#record(pq);
      if (progress.consumed > progress.committable) progress.committable = progress.consumed;
      progress.storable = true;
    }
    await this.write(touched);
  }

  /**
   * RocketMQ's correctTagsOffset: with nothing cached, the offset moves past a range the broker answered with no
   * (matching) message.
   */
  skipTo(pq: ProgressedQueue, offset: number): void {
    if (pq.msgCount === 0) this.moveTo(this.#record(pq), offset);
  }

  /** The offset a pull of this queue may commit, or undefined (see the class comment). */
  pullCommit(pq: ProgressedQueue): number | undefined {
    if (!this.pullCommits) return undefined;
    const { committable, persisted } = pq.progress;
    return committable > 0 && committable !== persisted ? committable : undefined;
  }

  /**
   * Hands each queue's committable offset to the store and persists them (the periodic commit). Never rejects;
   * resolves true when the store acknowledged them.
   */
  async persist(
    pqs: readonly ProgressedQueue[],
    where = 'persist',
    options?: { readonly unchanged?: boolean },
  ): Promise<boolean> {
    try {
      await this.write(pqs, options);
      return true;
    } catch (error) {
      reportError(this.ctx, where, error, pqs.length === 1 ? pqs[0]!.mq : undefined);
      return false;
    }
  }

  /**
   * Writes what changed of these queues (see OffsetTable.write): the store is asked only for offsets it does not
   * hold yet, or has not been sent for a while, or every one with `unchanged`.
   */
  private async write(all: readonly ProgressedQueue[], options?: { readonly unchanged?: boolean }): Promise<void> {
    const pqs = all.filter((pq) => this.#record(pq).storable);
    if (pqs.length === 0) return;
    const handed = pqs.map((pq) => pq.progress.committable);
    for (let i = 0; i < pqs.length; i++) if (handed[i]! >= 0) this.#table.update(pqs[i]!.mq, handed[i]!, true);
    await this.#table.write(
      pqs.map((pq) => pq.mq),
      options?.unchanged,
    );
    for (let i = 0; i < pqs.length; i++) {
      const progress = this.#record(pqs[i]!);
      if (handed[i]! > progress.persisted) progress.persisted = handed[i]!;
    }
  }

  /**
   * A released queue: its final committable offset is persisted (with `confirm`, read back and written again while
   * the store holds less: see the class comment), then the table forgets the queue. The caller advances it first,
   * while its cache still says which messages are unfinished.
   */
  async finish(pq: ProgressedQueue, options: { brokerGone?: boolean; confirm?: boolean } = {}): Promise<void> {
    let acknowledged = await this.persist([pq], 'persist-on-release');
    const { committable, storable } = this.#record(pq);
    if (acknowledged && options.confirm && storable && committable >= 0) {
      try {
        acknowledged = await this.#table.confirm(pq.mq, committable);
      } catch (error) {
        reportError(this.ctx, 'persist-on-release', error, pq.mq);
        acknowledged = false;
      }
    }
    if ((!acknowledged || options.brokerGone) && committable >= 0 && storable) {
      this.#released.remember(pq.mq, committable, options.brokerGone === true);
    }
    this.#table.remove(pq.mq);
  }

  /**
   * What this member consumed of a queue it released (see ReleasedOffsets), or -1. A queue taken again starts there
   * when the store's offset is lower.
   */
  remembered(mq: MessageQueue): number {
    return this.#released.remembered(mq);
  }

  /** Remembered queues routed again: see ReleasedOffsets.offerBack. Resolves false while an offer is to be retried. */
  offerBack(routed: readonly MessageQueue[], retryForMs = 0): Promise<boolean> {
    return this.#released.offerBack(routed, retryForMs);
  }

  /** Forgets remembered queues (allocated to another member, which now owns their progress). */
  forget(mqs: readonly MessageQueue[]): void {
    this.#released.forget(mqs);
  }

  /**
   * Explicit lowering writes (a reset pushed by the broker, OFFSET_ILLEGAL): stored as resets, persisted, then
   * forgotten in memory so the next owner reads them back. Rejects when the persist fails.
   */
  async reset(entries: ReadonlyArray<{ readonly mq: MessageQueue; readonly offset: number }>): Promise<void> {
    for (const { mq, offset } of entries) {
      this.#released.forget([mq]);
      this.#table.reset(mq, offset);
    }
    try {
      await this.#table.write(entries.map((e) => e.mq));
    } finally {
      for (const { mq } of entries) this.#table.remove(mq);
    }
  }
}
