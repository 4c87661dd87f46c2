import { mqKey, type MessageQueue } from '@mqkit/core';
import type { OffsetEntry } from '@mqkit/core/internal';

/** Called with true when pulling should pause, false when it may resume. */
export type BackpressureListener = (paused: boolean) => void;

/**
 * How much consumption is recorded only in memory: per queue, the in-memory offset minus the last offset known
 * to be in Redis (read from it or written to it; for a queue Redis never had, its first in-memory offset).
 * When flushes fail and that sum passes the limit, listeners are told to pause pulling; the first successful
 * flush resumes them.
 */
export class UnpersistedProgress {
  private readonly persisted = new Map<string, number>();
  private readonly listeners = new Set<BackpressureListener>();
  private paused = false;

  constructor(private readonly limit: number) {}

  get isPaused(): boolean {
    return this.paused;
  }

  /** The store holds `offset` for this queue (a read found it, or a flush wrote it). */
  known(mq: MessageQueue, offset: number): void {
    if (this.limit === Number.POSITIVE_INFINITY) return;
    this.persisted.set(mqKey(mq), offset);
  }

  /** An update: a queue seen for the first time counts from here. Cheap enough for the commit path. */
  touched(mq: MessageQueue, offset: number): void {
    if (this.limit === Number.POSITIVE_INFINITY) return;
    const key = mqKey(mq);
    if (!this.persisted.has(key)) this.persisted.set(key, offset);
  }

  forget(mq: MessageQueue): void {
    this.persisted.delete(mqKey(mq));
  }

  /** Sum over these entries of their progress beyond what Redis holds. */
  total(entries: readonly OffsetEntry[]): number {
    let sum = 0;
    for (const entry of entries) {
      const base = this.persisted.get(mqKey(entry.mq));
      if (base !== undefined && entry.offset > base) sum += entry.offset - base;
    }
    return sum;
  }

  /** After a failed flush: pause when the unpersisted progress is over the limit. */
  failed(entries: readonly OffsetEntry[]): void {
    if (!this.paused && this.limit !== Number.POSITIVE_INFINITY && this.total(entries) > this.limit) this.set(true);
  }

  /** After a successful flush. */
  succeeded(): void {
    if (this.paused) this.set(false);
  }

  /** Subscribes; a listener added while paused hears `true` at once. Returns the unsubscribe function. */
  watch(listener: BackpressureListener): () => void {
    this.listeners.add(listener);
    if (this.paused) listener(true);
    return () => this.listeners.delete(listener);
  }

  private set(paused: boolean): void {
    this.paused = paused;
    for (const listener of [...this.listeners]) listener(paused);
  }
}
