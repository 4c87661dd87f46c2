import type { MessageRecord } from '../../model/message';

/**
 * The messages of one queue pulled and not yet finished, in offset order: ProcessQueue's cache. Pulled batches
 * arrive in increasing offset order, so instead of Java's TreeMap this keeps parallel arrays (offsets, sizes, done
 * flags) indexed by a sequence number each message carries: put, mark-done and the committable-offset query are all
 * O(1) amortised.
 */
export class OffsetWindow {
  #count = 0;
  #bytes = 0;
  #maxOffset = -1;
  #offsets: number[] = [];
  #sizes: number[] = [];
  #done: boolean[] = [];
  #head = 0;
  /** Sequence number of #offsets[0]. */
  #base = 0;

  /** Messages cached and not finished. */
  get count(): number {
    return this.#count;
  }
  /** Body bytes of those messages. */
  get bytes(): number {
    return this.#bytes;
  }
  /** Offset of the last message put, -1 before the first. */
  get maxOffset(): number {
    return this.#maxOffset;
  }

  /** Offset span of what is cached: last put - first unfinished; 0 when empty. */
  get span(): number {
    return this.#count === 0 ? 0 : this.#maxOffset - this.#offsets[this.#head]!;
  }

  /**
   * Adds pulled records; returns their bytes and hands each accepted one to `accept` with its sequence number
   * (records at or below the last offset put are duplicates of a retried pull and are skipped, as Java's TreeMap
   * would replace them).
   */
  put(records: readonly MessageRecord[], accept: (record: MessageRecord, seq: number) => void): number {
    let bytes = 0;
    for (let i = 0; i < records.length; i++) {
      const record = records[i]!;
      if (record.queueOffset <= this.#maxOffset) continue;
      const seq = this.#base + this.#offsets.length;
      this.#offsets.push(record.queueOffset);
      this.#sizes.push(record.body.length);
      this.#done.push(false);
      this.#maxOffset = record.queueOffset;
      bytes += record.body.length;
      this.#count++;
      accept(record, seq);
    }
    this.#bytes += bytes;
    return bytes;
  }

  /**
   * Marks items[start, end) finished by their sequence numbers; returns the bytes released, or -1 when the range
   * was empty. Messages already finished are ignored, so a late result after a timeout sweep cannot count twice.
   */
  remove<T>(items: ArrayLike<T>, start: number, end: number, seqOf: (item: T) => number): number {
    if (end <= start) return -1;
    let bytes = 0;
    for (let i = start; i < end; i++) {
      const index = seqOf(items[i]!) - this.#base;
      if (index < this.#head || index >= this.#done.length || this.#done[index]) continue;
      this.#done[index] = true;
      bytes += this.#sizes[index]!;
      this.#count--;
    }
    this.#bytes -= bytes;
    this.#advanceHead();
    return bytes;
  }

  /** remove() for one message, without an array (the per-message handler path); -1 when it was not cached. */
  removeOne(seq: number): number {
    const index = seq - this.#base;
    if (index < this.#head || index >= this.#done.length || this.#done[index]) return -1;
    this.#done[index] = true;
    const bytes = this.#sizes[index]!;
    this.#count--;
    this.#bytes -= bytes;
    if (index === this.#head) this.#advanceHead();
    return bytes;
  }

  /** True while the message with this sequence number is cached and unfinished. */
  contains(seq: number): boolean {
    const index = seq - this.#base;
    return index >= this.#head && index < this.#done.length && !this.#done[index];
  }

  /** The smallest offset still in flight, or the last offset + 1; -1 before anything was put. */
  committableOffset(): number {
    if (this.#head < this.#offsets.length) return this.#offsets[this.#head]!;
    return this.#maxOffset < 0 ? -1 : this.#maxOffset + 1;
  }

  /** Drops everything cached; returns the bytes released. Sequence numbers handed out before stay unknown. */
  clear(): number {
    const bytes = this.#bytes;
    this.#base += this.#offsets.length;
    this.#offsets = [];
    this.#sizes = [];
    this.#done = [];
    this.#head = 0;
    this.#count = 0;
    this.#bytes = 0;
    return bytes;
  }

  #advanceHead(): void {
    while (this.#head < this.#done.length && this.#done[this.#head]) this.#head++;
    // Drops the finished prefix once it dominates the window, keeping the arrays small.
    if (this.#head < 1024 || this.#head * 2 < this.#offsets.length) return;
    this.#offsets.splice(0, this.#head);
    this.#sizes.splice(0, this.#head);
    this.#done.splice(0, this.#head);
    this.#base += this.#head;
    this.#head = 0;
  }
}
