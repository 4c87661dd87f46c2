import { mqKey, type MessageQueue } from '../model/message-queue';
import type { OffsetStore, PersistOptions } from '../spi/offset-store';
import type { GroupContext } from './group-context';
import { reportError } from './group-context';
import type { ProcessQueue } from './process-queue';

/** One queue's progress, as the rest of the engine reads it. Only ConsumeProgress writes it. */
export interface QueueProgress {
  /**
   * The offset that may be committed: every message below it finished (RocketMQ's min-in-flight rule). It is not
   * a committed value: that is what the offset store acknowledged, `persisted`.
   */
  readonly committable: number;
  /** The last committable offset the offset store acknowledged as written; -1 before any. */
  readonly persisted: number;
}

interface ProgressRecord extends QueueProgress {
  committable: number;
  persisted: number;
  /** With manual commits: where consumption got to (committable follows it only at `commit`). */
  consumed: number;
  /** A pull consumer's queue: poll returned some of its messages, or the application sought it. */
  touched: boolean;
  /** Writes may store this queue's offset: always for push consumers, see `PullCommits` for pull consumers. */
  storable: boolean;
}

/**
 * How a pull consumer's offsets reach the store. Only queues the application touched (polled from or sought, as
 * Java's lite pull consumer commits only queues whose consumer offset it set) are ever stored, so a queue assigned
 * and never read keeps whatever offset the store had: `'auto'` stores them at the periodic commit, `'manual'` once
 * `commit` made them committable, and only at or after that commit.
 */
export type PullCommits = 'auto' | 'manual';

/** How long a released queue's offset is kept in case the queue comes back (a broker outage, a failed commit). */
export const REMEMBER_RELEASED_MS = 10 * 60_000;

/**
 * The one owner of a group's consumer progress (docs/architecture.md#ownership-rules). The consume path reports
 * finished work here (`advance`), the pull loop reports ranges with nothing to consume (`skipTo`); this class alone
 * turns them into each queue's committable offset, and the offset store is its only way out: a periodic and a final
 * `persist`, and the commit a pull may carry (RocketMQ's piggy-backed commit). Pulls carry one only with the
 * broker's own store (with another store the broker must not receive commits at all), only when it is not the
 * value the store already acknowledged, and only for groups that move queues without broker locks: a broker
 * applies a pull's commit on its pull thread pool, which can run it after the final UPDATE_CONSUMER_OFFSET of a
 * released queue (on its consumer-manage pool) and send the next owner back one batch (seen on 5.3.3 with ORDERLY).
 */
export class ConsumeProgress {
  /**
   * Offsets of queues this member released without the store's acknowledgement, or because their broker left
   * the route (a crashed broker can come back with offsets older than what was consumed, or none at all).
   */
  private readonly released = new Map<
    string,
    {
      readonly mq: MessageQueue;
      readonly offset: number;
      readonly at: number;
      readonly brokerGone: boolean;
      offered: boolean;
      firstOfferAt?: number;
    }
  >();

  constructor(
    private readonly ctx: Pick<GroupContext, 'group' | 'events'>,
    private readonly store: OffsetStore,
    /** Pulls may carry the committable offset (RocketMQ's piggy-backed commit). */
    private readonly pullCommits: boolean,
    /**
     * Undefined for push consumers. A pull consumer stores only the queues it touched (see PullCommits); with
     * `'manual'` (no autoCommit) finished work moves `consumed` only, and the committable offset (what persists and
     * releases write) follows it at `commit`, so nothing the application has not committed is ever stored.
     */
    private readonly pull?: PullCommits,
  ) {}

  private get manualCommit(): boolean {
    return this.pull === 'manual';
  }

  /**
   * A newly owned queue starts at `offset`; a plain update, so a stale in-memory value cannot hold it back. A pull
   * consumer's sought queue begins `touched`.
   */
  begin(mq: MessageQueue, offset: number, touched = false): QueueProgress {
    this.released.delete(mqKey(mq));
    this.store.update(mq, offset, { increaseOnly: false });
    const progress: ProgressRecord = {
      committable: offset,
      persisted: -1,
      consumed: offset,
      touched,
      storable: this.pull === undefined || (touched && this.pull === 'auto'),
    };
    return progress;
  }

  /** A pull consumer's poll returned messages of this queue: its offset may be stored from now on. */
  touch(pq: ProcessQueue): void {
    const progress = pq.progress as ProgressRecord;
    progress.touched = true;
    if (this.pull === 'auto') progress.storable = true;
  }

  /** After finished messages left the queue: the committable offset follows the smallest one still in flight. */
  advance(pq: ProcessQueue): void {
    this.moveTo(pq.progress as ProgressRecord, pq.committableOffset());
  }

  private moveTo(progress: ProgressRecord, offset: number): void {
    if (offset > progress.consumed) progress.consumed = offset;
    if (!this.manualCommit && offset > progress.committable) progress.committable = offset;
  }

  /** Where consumption got to: the committable offset, or with manual commits what `commit` would store. */
  consumed(pq: ProcessQueue): number {
    return (pq.progress as ProgressRecord).consumed;
  }

  /**
   * A pull consumer's commit: each touched queue's committable offset becomes what was consumed, and is persisted
   * (the others are left alone). Resolves once the store acknowledged; rejects with the store's error.
   */
  async commit(pqs: readonly ProcessQueue[]): Promise<void> {
    const touched = pqs.filter((pq) => (pq.progress as ProgressRecord).touched);
    for (const pq of touched) {
      const progress = pq.progress as ProgressRecord;
      if (progress.consumed > progress.committable) progress.committable = progress.consumed;
      progress.storable = true;
    }
    await this.write(touched);
  }

  /**
   * RocketMQ's correctTagsOffset: with nothing cached, the offset moves past a range the broker answered with no
   * (matching) message.
   */
  skipTo(pq: ProcessQueue, offset: number): void {
    if (pq.msgCount === 0) this.moveTo(pq.progress as ProgressRecord, offset);
  }

  /** The offset a pull of this queue may commit, or undefined (see the class comment). */
  pullCommit(pq: ProcessQueue): number | undefined {
    if (!this.pullCommits) return undefined;
    const { committable, persisted } = pq.progress;
    return committable > 0 && committable !== persisted ? committable : undefined;
  }

  /**
   * Hands each queue's committable offset to the store and persists them (the periodic commit). Never rejects;
   * resolves true when the store acknowledged them.
   */
  async persist(pqs: readonly ProcessQueue[], where = 'persist', options?: PersistOptions): Promise<boolean> {
    try {
      await this.write(pqs, options);
      return true;
    } catch (error) {
      reportError(this.ctx, where, error, pqs.length === 1 ? pqs[0]!.mq : undefined);
      return false;
    }
  }

  private async write(all: readonly ProcessQueue[], options?: PersistOptions): Promise<void> {
    const pqs = all.filter((pq) => (pq.progress as ProgressRecord).storable);
    if (pqs.length === 0) return;
    const handed = pqs.map((pq) => pq.progress.committable);
    for (let i = 0; i < pqs.length; i++)
      if (handed[i]! >= 0) this.store.update(pqs[i]!.mq, handed[i]!, { increaseOnly: true });
    await this.store.persist(
      pqs.map((pq) => pq.mq),
      options,
    );
    for (let i = 0; i < pqs.length; i++) {
      const progress = pqs[i]!.progress as ProgressRecord;
      if (handed[i]! > progress.persisted) progress.persisted = handed[i]!;
    }
  }

  /**
   * A released queue: its final committable offset is persisted, then the store forgets the queue. The caller
   * advances it first, while its cache still says which messages are unfinished.
   */
  async finish(pq: ProcessQueue, options: { brokerGone?: boolean } = {}): Promise<void> {
    const acknowledged = await this.persist([pq], 'persist-on-release');
    const { committable, storable } = pq.progress as ProgressRecord;
    if ((!acknowledged || options.brokerGone) && committable >= 0 && storable) {
      this.released.set(pq.key, {
        mq: pq.mq,
        offset: committable,
        at: Date.now(),
        brokerGone: options.brokerGone === true,
        offered: false,
      });
    }
    this.store.remove(pq.mq);
  }

  /**
   * What this member consumed of a queue it released (see `released`), or -1. A queue taken again starts there
   * when the store's offset is lower: a member that knows a later committed offset than a restarted broker
   * reports does not move the queue back.
   */
  remembered(mq: MessageQueue): number {
    const entry = this.released.get(mqKey(mq));
    if (!entry) return -1;
    if (Date.now() - entry.at > REMEMBER_RELEASED_MS) {
      this.released.delete(mqKey(mq));
      return -1;
    }
    return entry.offset;
  }

  /**
   * Remembered queues routed again: writes what this member consumed back to the store, once, before the queues
   * are allocated, so a member that takes one next reads it rather than what a restarted broker kept. A queue whose
   * broker left the route is written as it is: nobody consumed it while its broker was gone. One whose final
   * commit failed is written only when the store holds less. Every message below such an offset was handled, so
   * writing it loses nothing; a new owner that reads first starts earlier (duplicates, never loss).
   *
   * Resolves false while a failed offer may still be retried: the other members wait `retryForMs` (the route-arrival
   * grace) for it, so the caller allocates nothing yet and comes back soon. After that the offer is given up.
   */
  async offerBack(routed: readonly MessageQueue[], retryForMs = 0): Promise<boolean> {
    let retry = false;
    await Promise.all(
      routed.map(async (mq) => {
        const entry = this.released.get(mqKey(mq));
        if (!entry || entry.offered || this.remembered(mq) < 0) return;
        const now = Date.now();
        entry.firstOfferAt ??= now;
        try {
          if (entry.brokerGone || (await this.store.read(mq, 'store')) < entry.offset)
            await this.writeBack(mq, entry.offset);
          entry.offered = true;
        } catch (error) {
          reportError(this.ctx, 'offset-offer', error, mq);
          // A broker just back in the route may refuse the write (no connection yet, an error while it starts). The
          // members that take its queues wait the grace for this write, so it is worth trying again until then.
          if (now - entry.firstOfferAt < retryForMs) retry = true;
          else entry.offered = true;
        } finally {
          this.store.remove(mq);
        }
      }),
    );
    return !retry;
  }

  /**
   * Writes a remembered offset and reads it back, writing again while it is missing. A broker back from a crash has
   * no table for the group's topic when the members offer their queues at once, and making that table is not atomic
   * there (ConsumerOffsetManager: a get, then a put of a new table holding one queue): of two first writes landing
   * together one is lost, though both were acknowledged, and that queue would be read again from consumeFromWhere.
   * Once one write made the table, the next ones keep.
   */
  private async writeBack(mq: MessageQueue, offset: number): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      this.store.update(mq, offset, { increaseOnly: false });
      await this.store.persist([mq]);
      if ((await this.store.read(mq, 'store')) >= offset) return;
    }
  }

  /** Forgets remembered queues (allocated to another member, which now owns their progress). */
  forget(mqs: readonly MessageQueue[]): void {
    for (const mq of mqs) this.released.delete(mqKey(mq));
  }

  /**
   * Explicit lowering writes (a reset pushed by the broker, OFFSET_ILLEGAL): stored as resets, persisted, then
   * forgotten in memory so the next owner reads them back. Rejects when the persist fails.
   */
  async reset(entries: ReadonlyArray<{ readonly mq: MessageQueue; readonly offset: number }>): Promise<void> {
    for (const { mq, offset } of entries) {
      this.released.delete(mqKey(mq));
      this.store.reset(mq, offset);
    }
    try {
      await this.store.persist(entries.map((e) => e.mq));
    } finally {
      for (const { mq } of entries) this.store.remove(mq);
    }
  }
}
