import { mqKey, type MessageQueue } from '@mqkit/core';

/**
 * Orders this client's offset commits per group and queue. A 5.3.3 broker runs UPDATE_CONSUMER_OFFSET requests on
 * a pool of threads (consumerManageThreadPoolNums, 32), so two commits of one queue sent back to back (a periodic
 * persist and the final one of a released queue) can be applied in either order, and the older, lower one can win:
 * the next owner would then consume part of the queue again. Here a commit of a queue is sent only after the
 * previous one was answered. The ledger also remembers the last offset the broker acknowledged, so a pull does not
 * piggy-back a commit the broker already has (each piggy-backed commit is one more write that could land late).
 */
export class CommitLedger {
  private readonly chains = new Map<string, Promise<void>>();
  private readonly acknowledged = new Map<string, number>();

  /** Runs `send` after the previous commit of the same queue settled; records `offset` when it succeeds. */
  commit(group: string, mq: MessageQueue, offset: number, send: () => Promise<void>): Promise<void> {
    const key = `${group}\u0000${mqKey(mq)}`;
    const previous = this.chains.get(key) ?? Promise.resolve();
    const next = previous.then(send).then(() => {
      this.acknowledged.set(key, offset);
    });
    const tail = next.catch(() => undefined);
    this.chains.set(key, tail);
    void tail.then(() => {
      if (this.chains.get(key) === tail) this.chains.delete(key);
    });
    return next;
  }

  /** The offset of the queue's last acknowledged commit by this client, or undefined. */
  lastAcknowledged(group: string, mq: MessageQueue): number | undefined {
    return this.acknowledged.get(`${group}\u0000${mqKey(mq)}`);
  }
}
