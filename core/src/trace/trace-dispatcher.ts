import type { EventBus } from '../events/event-bus';
import { toError } from '../util/deferred';
import { Fifo } from '../util/fifo';
import type { TraceContext } from './trace-context';
import { buildTraceMessages, type TraceMessage } from './trace-messages';

/** What a client's message trace has done so far (`status().trace`, `traceStatus()`). */
export interface TraceStatus {
  /** The internal producer group trace messages are sent with. */
  readonly producerGroup: string;
  readonly traceTopic: string;
  /** Trace contexts waiting to be sent. */
  readonly queued: number;
  /** Trace contexts in trace messages being sent now. */
  readonly sending: number;
  /** Trace contexts the broker stored. */
  readonly sent: number;
  /** Trace contexts refused because the queue was full (or the client was stopping): never sent. */
  readonly dropped: number;
  /** Trace contexts whose trace message could not be sent, retries included. */
  readonly failed: number;
}

export interface TraceDispatcherSettings {
  readonly producerGroup: string;
  readonly traceTopic: string;
  /** Contexts per flush (traceMsgBatchNum). */
  readonly batchNum: number;
  /** Contexts waiting, at most. */
  readonly queueSize: number;
  /** Body bytes of one trace message, at most (Java's trace producer: 128000). */
  readonly maxMsgSize: number;
  /** A non-full batch waits at most this long after the last flush (Java's flushTraceInterval: 5000 ms). */
  readonly flushIntervalMs: number;
  /** Trace messages in flight, at most (Java's trace send pool has 4 threads); the rest waits in the queue. */
  readonly maxInFlight: number;
}

/**
 * RocketMQ's AsyncTraceDispatcher without its threads: `append` puts a context in a bounded queue and returns at
 * once; a full batch (or the flush interval) sends the queued contexts as trace messages, at most `maxInFlight` at
 * a time. A full queue drops the new context and counts it (Java logs "buffer full" and counts it too): tracing
 * never makes a send or a handler wait. `stop()` sends what is queued, as Java's shutdown flush does.
 */
export class TraceDispatcher {
  private readonly queue = new Fifo<TraceContext>();
  private readonly inFlight = new Set<Promise<void>>();
  private sendingCount = 0;
  private sent = 0;
  private dropped = 0;
  private failed = 0;
  private lastFlush = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly settings: TraceDispatcherSettings,
    /** Sends one trace message; rejects when it could not be stored. */
    private readonly send: (message: TraceMessage) => Promise<void>,
    private readonly events: EventBus,
  ) {}

  /** Queues a context; false when it was dropped (queue full, or stopping). */
  append(ctx: TraceContext): boolean {
    if (this.closed || this.queue.size >= this.settings.queueSize) {
      this.dropped++;
      this.report(this.closed ? 'stopped' : 'queue-full', 1);
      return false;
    }
    this.queue.push(ctx);
    this.pump(false);
    return true;
  }

  status(): TraceStatus {
    const { producerGroup, traceTopic } = this.settings;
    return {
      producerGroup,
      traceTopic,
      queued: this.queue.size,
      sending: this.sendingCount,
      sent: this.sent,
      dropped: this.dropped,
      failed: this.failed,
    };
  }

  /** Refuses new contexts, sends every queued one and resolves once every trace message is settled. */
  stop(): Promise<void> {
    this.stopping ??= this.drain();
    return this.stopping;
  }

  private async drain(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.queue.size > 0 || this.inFlight.size > 0) {
      this.pump(true);
      if (this.inFlight.size > 0) await Promise.race(this.inFlight);
    }
  }

  /** Java's flushTraceContext: a batch when there are batchNum contexts, or any once the interval passed. */
  private pump(force: boolean): void {
    const { batchNum, flushIntervalMs, maxInFlight } = this.settings;
    while (this.queue.size > 0 && this.inFlight.size < maxInFlight) {
      if (!force && this.queue.size < batchNum && Date.now() - this.lastFlush < flushIntervalMs) break;
      const batch: TraceContext[] = [];
      while (batch.length < batchNum && this.queue.size > 0) batch.push(this.queue.shift()!);
      this.lastFlush = Date.now();
      this.launch(batch);
    }
    if (this.queue.size > 0 && !this.timer && !this.closed && this.inFlight.size < maxInFlight) {
      const wait = Math.max(0, this.lastFlush + flushIntervalMs - Date.now());
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.pump(false);
      }, wait);
      this.timer.unref();
    }
  }

  private launch(batch: readonly TraceContext[]): void {
    const messages = buildTraceMessages(batch, this.settings.maxMsgSize);
    const contexts = messages.reduce((n, m) => n + m.contexts, 0);
    this.sendingCount += contexts;
    const done = this.sendAll(messages).finally(() => {
      this.sendingCount -= contexts;
      this.inFlight.delete(done);
      // Each settled batch makes room: the next one goes out if it is due (or at once when stopping).
      this.pump(this.closed);
    });
    this.inFlight.add(done);
  }

  /** Sends one batch's messages one after another; never rejects (a failure is counted and reported). */
  private async sendAll(messages: readonly TraceMessage[]): Promise<void> {
    for (const message of messages) {
      try {
        await this.send(message);
        this.sent += message.contexts;
      } catch (error) {
        this.failed += message.contexts;
        this.report('send-failed', message.contexts, toError(error));
      }
    }
  }

  private report(reason: 'queue-full' | 'stopped' | 'send-failed', contexts: number, error?: Error): void {
    if (!this.events.has('trace.dropped')) return;
    const { producerGroup, traceTopic } = this.settings;
    this.events.emit('trace.dropped', {
      producerGroup,
      traceTopic,
      reason,
      contexts,
      dropped: this.dropped,
      failed: this.failed,
      ...(error ? { error } : {}),
    });
  }
}
