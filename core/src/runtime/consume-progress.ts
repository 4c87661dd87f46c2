import type { MessageQueue } from '../model/message-queue';
import type { OffsetStore } from '../spi/offset-store';
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
}

/**
 * The one owner of a group's consumer progress (ARCHITECTURE.md §8.2). The consume path reports finished work
 * here (`advance`), the pull loop reports ranges with nothing to consume (`skipTo`); this class alone turns them
 * into each queue's committable offset, and the offset store is its only way out: a periodic and a final
 * `persist`, and the commit a pull may carry (RocketMQ's piggy-backed commit). Pulls carry one only with the
 * broker's own store (with another store the broker must not receive commits at all), only when it is not the
 * value the store already acknowledged, and only for groups that move queues without broker locks: a broker
 * applies a pull's commit on its pull thread pool, which can run it after the final UPDATE_CONSUMER_OFFSET of a
 * released queue (on its consumer-manage pool) and send the next owner back one batch (seen on 5.3.3 with ORDERLY).
 */
export class ConsumeProgress {
  constructor(
    private readonly ctx: Pick<GroupContext, 'group' | 'events'>,
    private readonly store: OffsetStore,
    /** Pulls may carry the committable offset (RocketMQ's piggy-backed commit). */
    private readonly pullCommits: boolean,
  ) {}

  /** A newly owned queue starts at `offset`; a plain update, so a stale in-memory value cannot hold it back. */
  begin(mq: MessageQueue, offset: number): QueueProgress {
    this.store.update(mq, offset, { increaseOnly: false });
    return { committable: offset, persisted: -1 } satisfies ProgressRecord;
  }

  /** After finished messages left the queue: the committable offset follows the smallest one still in flight. */
  advance(pq: ProcessQueue): void {
    const offset = pq.committableOffset();
    const progress = pq.progress as ProgressRecord;
    if (offset > progress.committable) progress.committable = offset;
  }

  /**
   * RocketMQ's correctTagsOffset: with nothing cached, the offset moves past a range the broker answered with no
   * (matching) message.
   */
  skipTo(pq: ProcessQueue, offset: number): void {
    const progress = pq.progress as ProgressRecord;
    if (pq.msgCount === 0 && offset > progress.committable) progress.committable = offset;
  }

  /** The offset a pull of this queue may commit, or undefined (see the class comment). */
  pullCommit(pq: ProcessQueue): number | undefined {
    if (!this.pullCommits) return undefined;
    const { committable, persisted } = pq.progress;
    return committable > 0 && committable !== persisted ? committable : undefined;
  }

  /** Hands each queue's committable offset to the store and persists them (the periodic commit). Never rejects. */
  async persist(pqs: readonly ProcessQueue[], where = 'persist'): Promise<void> {
    if (pqs.length === 0) return;
    const handed = pqs.map((pq) => pq.progress.committable);
    for (let i = 0; i < pqs.length; i++) if (handed[i]! >= 0) this.store.update(pqs[i]!.mq, handed[i]!, { increaseOnly: true });
    try {
      await this.store.persist(pqs.map((pq) => pq.mq));
    } catch (error) {
      reportError(this.ctx, where, error, pqs.length === 1 ? pqs[0]!.mq : undefined);
      return;
    }
    for (let i = 0; i < pqs.length; i++) {
      const progress = pqs[i]!.progress as ProgressRecord;
      if (handed[i]! > progress.persisted) progress.persisted = handed[i]!;
    }
  }

  /**
   * A released queue: its final committable offset is persisted, then the store forgets the queue. The caller
   * advances it first, while its cache still says which messages are unfinished.
   */
  async finish(pq: ProcessQueue): Promise<void> {
    await this.persist([pq], 'persist-on-release');
    this.store.remove(pq.mq);
  }

  /**
   * Explicit lowering writes (a reset pushed by the broker, OFFSET_ILLEGAL): stored as resets, persisted, then
   * forgotten in memory so the next owner reads them back. Rejects when the persist fails.
   */
  async reset(entries: ReadonlyArray<{ readonly mq: MessageQueue; readonly offset: number }>): Promise<void> {
    for (const { mq, offset } of entries) this.store.reset(mq, offset);
    try {
      await this.store.persist(entries.map((e) => e.mq));
    } finally {
      for (const { mq } of entries) this.store.remove(mq);
    }
  }
}
