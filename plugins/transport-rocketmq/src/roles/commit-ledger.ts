import type { MessageQueue } from '@mqkit/core';

/**
 * Orders this client's offset commits: the one piece of progress state the transport keeps. A broker runs
 * UPDATE_CONSUMER_OFFSET requests on a pool of threads (consumerManageThreadPoolNums, 32), and two hazards follow:
 * - Two commits of one queue sent back to back (a periodic persist and the final one of a released queue) can be
 *   applied in either order, and the older, lower one can win: the next owner would then consume part of the queue
 *   again.
 * - The first commits of a group for a topic, of different queues, can lose one another: ConsumerOffsetManager
 *   (4.9.7 and 5.3.3 alike) finds no table for `topic@group`, makes one holding its own queue and puts it, so two
 *   requests doing that at once leave only one of their queues, each acknowledged. The compatibility suite saw a
 *   pull consumer's commit of two queues keep one; after a broker restart (which forgets what it had not flushed)
 *   it strands a queue with no offset, to be read again from where consumeFromWhere says.
 * So the commits of one group's topic to one broker are sent one at a time, each after the previous one was
 * answered; other topics and brokers go in parallel. Which commits exist, and whether a pull may carry one, is
 * core's decision (its ConsumeProgress).
 */
export class CommitLedger {
  private readonly chains = new Map<string, Promise<void>>();

  /** Runs `send` after the previous commit of the same group, topic and broker settled. */
  commit(group: string, mq: MessageQueue, send: () => Promise<void>): Promise<void> {
    const key = `${group}\u0000${mq.topic}\u0000${mq.brokerName}`;
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
