import { mqKey, type OffsetWrite } from '@mqkit/core';

interface Batch {
  readonly entries: Map<string, OffsetWrite>;
  readonly done: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Keeps at most one flush in flight. write() calls that arrive while one runs (the periodic persist of owned
 * queues, the persists of queues released one by one at stop) join the next flush, so the number of round trips
 * stays bounded by time, not by the number of queues or callers. Each caller's promise settles with the flush
 * that carried its entries.
 *
 * Within a batch the latest entry of a queue wins: callers hand snapshots of one table, and a later one is the
 * newer state (a reset's lowering entry carries its flag until it was written). An entry the flush just before
 * wrote as it is is dropped from the next batch: its callers asked while that write was under way, and it is
 * stored now.
 */
export class PersistCoalescer {
  #pending: Batch | undefined;
  #running: Promise<void> | undefined;

  readonly #flush: (entries: OffsetWrite[]) => Promise<void>;

  constructor(flush: (entries: OffsetWrite[]) => Promise<void>) {
    this.#flush = flush;
  }

  request(entries: readonly OffsetWrite[]): Promise<void> {
    this.#pending ??= newBatch();
    const batch = this.#pending;
    for (const entry of entries) batch.entries.set(mqKey(entry.mq), entry);
    this.#running ??= this.#drain();
    return batch.done;
  }

  /** Resolves when nothing is in flight or pending (close() waits for it). */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  /** Runs batches until none is pending. Never rejects: each batch's outcome goes to its own callers. */
  async #drain(): Promise<void> {
    // Let write() calls made in the same tick (a rebalance releasing several queues) join the first batch.
    await Promise.resolve();
    try {
      while (this.#pending) {
        const batch = this.#pending;
        this.#pending = undefined;
        try {
          await this.#flush([...batch.entries.values()]);
          batch.resolve();
          if (this.#pending) dropWritten(this.#pending, batch);
        } catch (error) {
          batch.reject(error);
        }
      }
    } finally {
      this.#running = undefined;
    }
  }
}

function dropWritten(next: Batch, written: Batch): void {
  for (const [key, entry] of next.entries) {
    const done = written.entries.get(key);
    if (done && done.offset === entry.offset && done.lowering === entry.lowering) next.entries.delete(key);
  }
}

function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const done = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { entries: new Map(), done, resolve, reject };
}
