import { mqKey, type MessageQueue } from '../../model/message-queue';

/** One queue's offset in an OffsetTable, with what its store needs to know about writing it. */
export interface OffsetEntry {
  readonly mq: MessageQueue;
  offset: number;
  /** Set by reset(): the next write may lower the stored value. */
  lowering: boolean;
  /** Changed since the last persist. */
  dirty: boolean;
  /** When the store last wrote this value (or read it from the store), Date.now() ms; 0 when never. */
  persistedAt: number;
}

/**
 * The in-memory side every offset store shares: RocketMQ's updateOffset rules (absent: set; increaseOnly:
 * max; otherwise overwrite), plus which entries changed and which are explicit lowering writes.
 */
export class OffsetTable {
  private readonly entries = new Map<string, OffsetEntry>();

  get(mq: MessageQueue): number {
    return this.entries.get(mqKey(mq))?.offset ?? -1;
  }

  has(mq: MessageQueue): boolean {
    return this.entries.has(mqKey(mq));
  }

  update(mq: MessageQueue, offset: number, increaseOnly: boolean): void {
    const key = mqKey(mq);
    const entry = this.entries.get(key);
    if (!entry) {
      this.entries.set(key, { mq, offset, lowering: false, dirty: true, persistedAt: 0 });
    } else if (!increaseOnly || offset > entry.offset) {
      if (entry.offset !== offset) entry.dirty = true;
      entry.offset = offset;
    }
  }

  /** A value loaded from the store: not dirty. */
  load(mq: MessageQueue, offset: number): void {
    this.entries.set(mqKey(mq), { mq, offset, lowering: false, dirty: false, persistedAt: Date.now() });
  }

  reset(mq: MessageQueue, offset: number): void {
    this.entries.set(mqKey(mq), { mq, offset, lowering: true, dirty: true, persistedAt: 0 });
  }

  remove(mq: MessageQueue): void {
    this.entries.delete(mqKey(mq));
  }

  /** Entries of these queues (all when omitted), for a persist. */
  select(mqs?: Iterable<MessageQueue>): OffsetEntry[] {
    if (!mqs) return [...this.entries.values()];
    const out: OffsetEntry[] = [];
    for (const mq of mqs) {
      const entry = this.entries.get(mqKey(mq));
      if (entry) out.push(entry);
    }
    return out;
  }

  /** Marks entries written, unless they changed again meanwhile. */
  markPersisted(
    written: ReadonlyArray<{ entry: OffsetEntry; offset: number; lowering: boolean }>,
    now = Date.now(),
  ): void {
    for (const { entry, offset, lowering } of written) {
      entry.persistedAt = now;
      if (entry.offset === offset) entry.dirty = false;
      if (lowering && entry.offset === offset) entry.lowering = false;
    }
  }

  size(): number {
    return this.entries.size;
  }
}
