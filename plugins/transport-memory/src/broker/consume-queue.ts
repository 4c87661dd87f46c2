import type { StoredMessage } from './stored-message';

/** A parked long-poll pull: re-run when a message arrives, answered NO_NEW_MSG when its hold expires. */
export interface PullWaiter {
  wake(): void;
}

/**
 * One queue of one topic on one broker: messages by logical offset (min offset is always 0 here: the embedded
 * broker keeps everything), plus the long polls waiting for the next message.
 */
export class ConsumeQueue {
  readonly messages: StoredMessage[] = [];
  private waiters = new Set<PullWaiter>();

  get maxOffset(): number {
    return this.messages.length;
  }

  get minOffset(): number {
    return 0;
  }

  append(message: StoredMessage): void {
    this.messages.push(message);
    if (this.waiters.size === 0) return;
    const waiters = this.waiters;
    this.waiters = new Set();
    for (const w of waiters) w.wake();
  }

  park(waiter: PullWaiter): void {
    this.waiters.add(waiter);
  }

  unpark(waiter: PullWaiter): void {
    this.waiters.delete(waiter);
  }

  /** First offset whose store time is >= timestamp (RocketMQ's lower boundary); maxOffset when none. */
  searchOffset(timestamp: number): number {
    let lo = 0;
    let hi = this.messages.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.messages[mid]!.storeTimestamp < timestamp) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
