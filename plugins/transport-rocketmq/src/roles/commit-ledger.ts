import { mqKey, type MessageQueue } from '@mqkit/core';

/**
 * Orders this client's offset commits per group and queue: the one piece of progress state the transport keeps.
 * A 5.3.3 broker runs UPDATE_CONSUMER_OFFSET requests on a pool of threads (consumerManageThreadPoolNums, 32), so
 * two commits of one queue sent back to back (a periodic persist and the final one of a released queue) can be
 * applied in either order, and the older, lower one can win: the next owner would then consume part of the queue
 * again. Here a commit of a queue is sent only after the previous one was answered. Which commits exist, and
 * whether a pull may carry one, is core's decision (its ConsumeProgress).
 */
export class CommitLedger {
  private readonly chains = new Map<string, Promise<void>>();

  /** Runs `send` after the previous commit of the same queue settled. */
  commit(group: string, mq: MessageQueue, send: () => Promise<void>): Promise<void> {
    const key = `${group}\u0000${mqKey(mq)}`;
    const previous = this.chains.get(key) ?? Promise.resolve();
    const next = previous.then(send);
    const tail = next.catch(() => undefined);
    this.chains.set(key, tail);
    void tail.then(() => {
      if (this.chains.get(key) === tail) this.chains.delete(key);
    });
    return next;
  }
}
