import type { MessageQueue } from '../model/message-queue';

/** What a handler gets next to its message(s). */
export interface ConsumeContext {
  readonly group: string;
  /** The queue the messages came from. */
  readonly mq: MessageQueue;
  /**
   * Aborted when the call runs past consumeTimeout (its messages are then retried) or when `stop()` gives up
   * waiting for it. Pass it to fetch() and friends.
   */
  readonly signal: AbortSignal;
  /**
   * Batch handlers: index of the last message that succeeded; later ones are retried (RocketMQ's ackIndex).
   * Default: the whole batch succeeded when the handler returns normally.
   */
  ackIndex: number;
  /** Delay level of the retry: -1 straight to the DLQ, 0 the broker's choice (3 + reconsumeTimes), 1-18 that level. */
  delayLevelWhenNextConsume: number;
  /** Orderly: how long to wait before the suspended batch is tried again (-1: the consumer's setting). */
  suspendCurrentQueueTimeMillis: number;
}
