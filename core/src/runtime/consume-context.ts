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

/**
 * The context object. The AbortController is created only when a handler reads `signal`, so the common path
 * allocates nothing for it.
 */
export class ConsumeContextImpl implements ConsumeContext {
  ackIndex = Number.MAX_SAFE_INTEGER;
  delayLevelWhenNextConsume = 0;
  suspendCurrentQueueTimeMillis = -1;
  private controller: AbortController | undefined;
  private abortReason: unknown;

  constructor(
    readonly group: string,
    readonly mq: MessageQueue,
  ) {}

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortReason !== undefined) this.controller.abort(this.abortReason);
    }
    return this.controller.signal;
  }

  /** Aborts the signal (now, or when a handler first reads it). */
  abort(reason: unknown): void {
    if (this.abortReason !== undefined) return;
    this.abortReason = reason;
    this.controller?.abort(reason);
  }
}
