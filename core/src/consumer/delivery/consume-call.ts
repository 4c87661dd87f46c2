import type { HandlerBinding } from './handler-binding';
import type { ConsumeContext } from '../../spi/consume-context';
import type { ConsumedMessage } from '../../model/consumed-message';
import type { PoolTask } from './elastic-pool';
import type { ProcessQueue } from '../queue/process-queue';
import type { QueueWork } from '../queue/queue-work';
import type { MessageQueue } from '../../model/message-queue';

/**
 * One handler call: the pool task and, at the same time, the ConsumeContext the handler receives (one object per
 * call instead of two, on the hottest path). Its messages are a range of the pulled batch, sliced only when a
 * batch handler needs its own array. The AbortController is made only if the handler reads `signal`.
 */
export class ConsumeCall<Q extends { readonly mq: MessageQueue } = ProcessQueue> implements ConsumeContext, PoolTask {
  ackIndex = Number.MAX_SAFE_INTEGER;
  delayLevelWhenNextConsume = 0;
  suspendCurrentQueueTimeMillis = -1;
  /** @internal pool bookkeeping */
  settled = false;
  /** @internal set by the consumeTimeout sweep */
  timedOut = false;
  /** @internal when the handler started (only while consume events are listened to); 0 otherwise */
  startedAt = 0;
  /** @internal the first consumeTimeout sweep that saw this call running */
  seenRunningAt = 0;
  /** @internal index in the consume service's running table */
  slot = -1;
  private controller: AbortController | undefined;
  private abortReason: unknown;

  constructor(
    readonly group: string,
    /** @internal */ readonly pq: Q,
    private readonly source: readonly ConsumedMessage[],
    private readonly start: number,
    private readonly end: number,
    /** @internal */ readonly binding: HandlerBinding | undefined,
  ) {}

  get mq(): MessageQueue {
    return this.pq.mq;
  }

  get size(): number {
    return this.end - this.start;
  }

  /** The messages of this call, as an array of their own. */
  messages(): ConsumedMessage[] {
    return this.source.slice(this.start, this.end) as ConsumedMessage[];
  }

  first(): ConsumedMessage {
    return this.source[this.start]!;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortReason !== undefined) this.controller.abort(this.abortReason);
    }
    return this.controller.signal;
  }

  /** Aborts the signal (now, or when the handler first reads it). */
  abort(reason: unknown): void {
    if (this.abortReason !== undefined) return;
    this.abortReason = reason;
    this.controller?.abort(reason);
  }

  /** Every message of this call finished: it leaves its queue's cache (see QueueWork.finish). */
  finishIn(work: QueueWork): void {
    work.finish(this.pq as unknown as ProcessQueue, this.source, this.start, this.end);
  }
}
