/**
 * A FIFO queue over a growable ring buffer: O(1) push and shift at any size, unlike Array#shift, which copies
 * once V8 leaves its fast path. Used for the consume backlog.
 */
export class Fifo<T> {
  private items: (T | undefined)[];
  private head = 0;
  private count = 0;

  constructor(initialCapacity = 64) {
    this.items = new Array<T | undefined>(initialCapacity);
  }

  get size(): number {
    return this.count;
  }

  push(item: T): void {
    if (this.count === this.items.length) this.grow();
    this.items[(this.head + this.count) % this.items.length] = item;
    this.count++;
  }

  shift(): T | undefined {
    if (this.count === 0) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined;
    this.head = (this.head + 1) % this.items.length;
    this.count--;
    return item;
  }

  /** Removes every item the predicate rejects, keeping order. */
  retain(keep: (item: T) => boolean): void {
    const kept: T[] = [];
    for (let i = 0; i < this.count; i++) {
      const item = this.items[(this.head + i) % this.items.length] as T;
      if (keep(item)) kept.push(item);
    }
    this.items = new Array<T | undefined>(Math.max(64, kept.length * 2));
    this.head = 0;
    this.count = 0;
    for (const item of kept) this.push(item);
  }

  private grow(): void {
    const next = new Array<T | undefined>(this.items.length * 2);
    for (let i = 0; i < this.count; i++) next[i] = this.items[(this.head + i) % this.items.length];
    this.items = next;
    this.head = 0;
  }
}
