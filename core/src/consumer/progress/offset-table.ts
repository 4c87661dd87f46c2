import { mqKey, type MessageQueue } from '../../model/message-queue';
import type { OffsetStore, OffsetWrite } from '../../spi/offset-store';

/**
 * How long an unchanged offset goes without being written again. Java's persistAll re-sends every owned queue's
 * offset every 5 s, changed or not; at 1,024 idle queues that is 200 requests a second of pure repetition, most of
 * an idle member's CPU and garbage (`npm run bench -- scale`). Writing changed offsets at every persist and the
 * unchanged ones at this interval keeps what the repetition is good for: a broker that lost its last offsets
 * (a crash before its consumerOffset.json flush, a master that took over) has them again within this time.
 */
export const UNCHANGED_OFFSET_REFRESH_MS = 30_000;

/** One queue's offset in the OffsetTable, with what the next write needs to know. */
interface OffsetEntry {
  readonly mq: MessageQueue;
  offset: number;
  /** Set by reset(): the next write may lower the stored value. */
  lowering: boolean;
  /** Changed since the store last acknowledged it. */
  dirty: boolean;
  /** When the store last acknowledged this value (or answered it to a read), Date.now() ms; 0 when never. */
  persistedAt: number;
}

/**
 * ConsumeProgress's in-memory offset table, the group's only one: RocketMQ's updateOffset rules (absent: set;
 * increaseOnly: max; otherwise overwrite), which entries changed since the store acknowledged them, and which are
 * explicit lowering writes. The store behind it only reads and writes; `write` decides what is worth sending.
 */
export class OffsetTable {
  readonly #entries = new Map<string, OffsetEntry>();
  readonly #store: OffsetStore;

  constructor(store: OffsetStore) {
    this.#store = store;
  }

  get(mq: MessageQueue): number {
    return this.#entries.get(mqKey(mq))?.offset ?? -1;
  }

  has(mq: MessageQueue): boolean {
    return this.#entries.has(mqKey(mq));
  }

  update(mq: MessageQueue, offset: number, increaseOnly: boolean): void {
    const key = mqKey(mq);
    const entry = this.#entries.get(key);
    if (!entry) {
      this.#entries.set(key, { mq, offset, lowering: false, dirty: true, persistedAt: 0 });
    } else if (!increaseOnly || offset > entry.offset) {
      if (entry.offset !== offset) entry.dirty = true;
      entry.offset = offset;
    }
  }

  /** An explicit lowering write: stored as given at the next write, even below what the store holds. */
  reset(mq: MessageQueue, offset: number): void {
    this.#entries.set(mqKey(mq), { mq, offset, lowering: true, dirty: true, persistedAt: 0 });
  }

  /** Forgets the entry (a released queue); the stored value stays. */
  remove(mq: MessageQueue): void {
    this.#entries.delete(mqKey(mq));
  }

  /**
   * Reads the store (RocketMQ's READ_FROM_STORE). A stored value becomes the entry, acknowledged: a queue that
   * begins at it has nothing to write until it moves (or the refresh interval passed).
   */
  async read(mq: MessageQueue): Promise<number> {
    const offset = await this.#store.read(mq);
    if (offset >= 0)
      this.#entries.set(mqKey(mq), { mq, offset, lowering: false, dirty: false, persistedAt: Date.now() });
    return offset;
  }

  /**
   * Writes the entries of these queues that changed since the store acknowledged them, and the unchanged ones that
   * went UNCHANGED_OFFSET_REFRESH_MS unwritten; every one with `unchanged` (after a route change: the broker behind
   * a queue may be another, which never received them). Resolves when the store acknowledged them, nothing to write
   * included; rejects with the store's error, and what was not acknowledged stays due.
   */
  async write(mqs: Iterable<MessageQueue>, unchanged = false): Promise<void> {
    const now = Date.now();
    // A Set: a queue listed twice is still one entry (the store is promised at most one per queue).
    const due = new Set<OffsetEntry>();
    for (const mq of mqs) {
      const entry = this.#entries.get(mqKey(mq));
      if (entry && (unchanged || entry.dirty || now - entry.persistedAt >= UNCHANGED_OFFSET_REFRESH_MS)) due.add(entry);
    }
    if (due.size === 0) return;
    const entries = [...due];
    // What is handed is a snapshot: the entries may move while the store writes, and only what was written is
    // acknowledged.
    const handed: OffsetWrite[] = entries.map(({ mq, offset, lowering }) => ({ mq, offset, lowering }));
    await this.#store.write(handed);
    const at = Date.now();
    for (const [i, entry] of entries.entries()) {
      const { offset, lowering } = handed[i]!;
      // A queue removed or reset while the write was under way has another entry now (or none): it is not this one.
      if (this.#entries.get(mqKey(entry.mq)) !== entry) continue;
      entry.persistedAt = at;
      if (entry.offset === offset) {
        entry.dirty = false;
        if (lowering) entry.lowering = false;
      }
    }
  }

  /**
   * After a write of `offset` the store acknowledged: reads it back, and writes it again (at most three times) while
   * the store holds less. An acknowledged write can still be overtaken there by an older one: a broker applies the
   * commit a pull carries on its pull threads and UPDATE_CONSUMER_OFFSET on others, so a pull sent before a final
   * commit can land after it; and two first writes of a group's new topic on a restarted broker race (a get, then a
   * put of a new table), one lost though both were acknowledged. Resolves with whether the store holds `offset` or
   * more.
   */
  async confirm(mq: MessageQueue, offset: number): Promise<boolean> {
    for (let attempt = 0; attempt < 3; attempt++) {
      if ((await this.read(mq)) >= offset) return true;
      this.update(mq, offset, false);
      // Unchanged included: to the table an acknowledged value is written already.
      await this.write([mq], true);
    }
    return (await this.read(mq)) >= offset;
  }
}
