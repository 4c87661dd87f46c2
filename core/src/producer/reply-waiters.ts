import type { MessageRecord } from '../model/message';

interface Waiter {
  readonly resolve: (record: MessageRecord) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

/**
 * The requests waiting for their reply, by correlation id (RocketMQ's RequestFutureHolder). Each has its own
 * timer, so a request fails at its timeout rather than at the next one-second scan as in Java. A reply whose
 * request is no longer here (timed out, or never this client's) is not taken.
 */
export class ReplyWaiters {
  private readonly waiting = new Map<string, Waiter>();

  get size(): number {
    return this.waiting.size;
  }

  /** Resolves with the reply of `correlationId`, or rejects with `onTimeout()` after `timeoutMs`. */
  expect(correlationId: string, timeoutMs: number, onTimeout: () => Error): Promise<MessageRecord> {
    return new Promise<MessageRecord>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(correlationId);
        reject(onTimeout());
      }, timeoutMs);
      this.waiting.set(correlationId, { resolve, reject, timer });
    });
  }

  /** Hands a reply to its request; false when nobody waits for it (a late or foreign reply). */
  settle(correlationId: string, record: MessageRecord): boolean {
    const waiter = this.take(correlationId);
    waiter?.resolve(record);
    return waiter !== undefined;
  }

  /** The request failed before any reply could come (its send failed, or the producer stopped). */
  fail(correlationId: string, error: Error): void {
    this.take(correlationId)?.reject(error);
  }

  private take(correlationId: string): Waiter | undefined {
    const waiter = this.waiting.get(correlationId);
    if (!waiter) return undefined;
    this.waiting.delete(correlationId);
    clearTimeout(waiter.timer);
    return waiter;
  }
}
