import { mqKey, type MessageQueue } from '@mqkit/core';

interface Batch {
  readonly mqs: Map<string, MessageQueue>;
  readonly done: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Keeps at most one flush in flight. persist() calls that arrive while one runs (the periodic persist of owned
 * queues, the persists of queues released one by one at stop) join the next flush, so the number of round trips
 * stays bounded by time, not by the number of queues or callers. Each caller's promise settles with the flush
 * that carried its queues.
 */
export class PersistCoalescer {
  private pending: Batch | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly flush: (mqs: MessageQueue[]) => Promise<void>) {}

  request(mqs: Iterable<MessageQueue>): Promise<void> {
    this.pending ??= newBatch();
    const batch = this.pending;
    for (const mq of mqs) batch.mqs.set(mqKey(mq), mq);
    this.running ??= this.drain();
    return batch.done;
  }

  /** Resolves when nothing is in flight or pending (close() waits for it). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Runs batches until none is pending. Never rejects: each batch's outcome goes to its own callers. */
  private async drain(): Promise<void> {
    // Let persist() calls made in the same tick (a rebalance releasing several queues) join the first batch.
    await Promise.resolve();
    try {
      while (this.pending) {
        const batch = this.pending;
        this.pending = undefined;
        try {
          await this.flush([...batch.mqs.values()]);
          batch.resolve();
        } catch (error) {
          batch.reject(error);
        }
      }
    } finally {
      this.running = undefined;
    }
  }
}

function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const done = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { mqs: new Map(), done, resolve, reject };
}
