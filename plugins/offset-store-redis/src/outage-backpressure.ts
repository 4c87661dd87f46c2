import { mqKey, type MessageQueue, type OffsetWrite } from '@mqkit/core';

/** Called with true when pulling should pause, false when it may resume. */
export type BackpressureListener = (paused: boolean) => void;

/**
 * The Redis store's flow control during an outage (`maxUnpersistedMessages`): how much consumed progress failed to
 * reach Redis since the last flush that did. Per queue that is the offset of its latest failed write minus the last
 * offset known to be in Redis (read from it or written to it; for a queue Redis never had, its first failed offset).
 * When a flush fails and the sum passes the limit, listeners are told to pause pulling; the next successful flush
 * resumes them and starts the count again (queues still behind are handed again by the next writes, and counted
 * again if those fail).
 *
 * This is not an offset table: ConsumeProgress keeps that. It holds only what the count needs, and nothing at all
 * without a limit.
 */
export class OutageBackpressure {
  /** The last offset known to be in Redis, per queue: where unwritten progress is counted from. */
  readonly #inRedis = new Map<string, number>();
  /** The latest offset of each queue whose write failed since the last successful flush. */
  readonly #unwritten = new Map<string, number>();
  readonly #listeners = new Set<BackpressureListener>();
  #paused = false;

  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  get isPaused(): boolean {
    return this.#paused;
  }

  get #counting(): boolean {
    return this.#limit !== Number.POSITIVE_INFINITY;
  }

  /** Redis holds `offset` for this queue (a read found it). */
  stored(mq: MessageQueue, offset: number): void {
    if (this.#counting) this.#inRedis.set(mqKey(mq), offset);
  }

  /** A flush wrote these entries: they count from there, and the outage (if any) is over. */
  succeeded(written: readonly OffsetWrite[]): void {
    if (this.#counting) for (const { mq, offset } of written) this.#inRedis.set(mqKey(mq), offset);
    this.#unwritten.clear();
    if (this.#paused) this.#set(false);
  }

  /** A flush of these entries failed: pause when the progress not in Redis is now over the limit. */
  failed(entries: readonly OffsetWrite[]): void {
    if (!this.#counting) return;
    for (const { mq, offset, lowering } of entries) {
      const key = mqKey(mq);
      // A reset is a new starting point: what is consumed after it counts from it.
      if (lowering || !this.#inRedis.has(key)) this.#inRedis.set(key, offset);
      this.#unwritten.set(key, offset);
    }
    if (!this.#paused && this.total() > this.#limit) this.#set(true);
  }

  /** The progress held only in memory: the sum over failed queues of what they are ahead of Redis. */
  total(): number {
    let sum = 0;
    for (const [key, offset] of this.#unwritten) {
      const base = this.#inRedis.get(key);
      if (base !== undefined && offset > base) sum += offset - base;
    }
    return sum;
  }

  /** Subscribes; a listener added while paused hears `true` at once. Returns the unsubscribe function. */
  watch(listener: BackpressureListener): () => void {
    this.#listeners.add(listener);
    if (this.#paused) listener(true);
    return () => this.#listeners.delete(listener);
  }

  #set(paused: boolean): void {
    this.#paused = paused;
    for (const listener of [...this.#listeners]) listener(paused);
  }
}
