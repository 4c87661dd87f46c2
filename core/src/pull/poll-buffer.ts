import type { MessageRecord } from '../model/message';
import type { ConsumedMessage } from '../model/consumed-message';
import { intake } from '../consumer/queue/queue-work';
import type { Accepted, ConsumeService } from '../consumer/queue/consume-service';
import type { ProcessQueue } from '../consumer/queue/process-queue';
import type { Codec } from '../spi/codec';
import { getOrCreate } from '../util/get-or-create';

interface Chunk {
  readonly pq: ProcessQueue;
  readonly messages: ConsumedMessage[];
  next: number;
}

/**
 * The pull consumer's side of the engine's pull loops: where a push consumer schedules handler calls, this keeps
 * what was pulled until `poll` takes it. Pull answers are kept in arrival order, so each queue's messages come out
 * in offset order. The messages stay in their ProcessQueue (flow control counts them) until taken.
 */
export class PollBuffer implements ConsumeService {
  private chunks: Chunk[] = [];
  private waiters = new Set<() => void>();
  private buffered = 0;
  private closed = false;

  constructor(
    /** The payload codec of every message (a pull consumer has one). */
    readonly codec: Codec,
    private readonly namespace?: string,
  ) {}

  get inFlight(): number {
    return 0;
  }
  get peakInFlight(): number {
    return 0;
  }
  /** Messages pulled and not polled yet. */
  get queued(): number {
    return this.buffered;
  }

  submit(pq: ProcessQueue, records: readonly MessageRecord[]): Accepted {
    const messages: ConsumedMessage[] = [];
    const bytes = intake(pq, records, messages, () => this.codec, this.namespace);
    if (messages.length > 0) {
      this.chunks.push({ pq, messages, next: 0 });
      this.buffered += messages.length;
      this.wake();
    }
    return { count: messages.length, bytes };
  }

  /** No handler runs here: poll hands the messages out, so there is no call to give up. */
  abandon(): number {
    return 0;
  }

  discardQueued(pq: ProcessQueue): void {
    this.chunks = this.chunks.filter((c) => {
      if (c.pq !== pq) return true;
      this.buffered -= c.messages.length - c.next;
      return false;
    });
  }

  /**
   * Takes up to `max` messages, oldest answers first, skipping queues `held` says to leave (paused ones keep their
   * place); messages of released queues are dropped. Grouped by queue, in offset order within each.
   */
  take(max: number, held: (pq: ProcessQueue) => boolean): Map<ProcessQueue, ConsumedMessage[]> {
    const out = new Map<ProcessQueue, ConsumedMessage[]>();
    let taken = 0;
    const kept: Chunk[] = [];
    for (const chunk of this.chunks) {
      const { pq } = chunk;
      if (!pq.active) {
        this.buffered -= chunk.messages.length - chunk.next;
        continue;
      }
      if (taken >= max || held(pq)) {
        kept.push(chunk);
        continue;
      }
      const n = Math.min(max - taken, chunk.messages.length - chunk.next);
      const list = getOrCreate(out, pq, () => []);
      for (let i = 0; i < n; i++) list.push(chunk.messages[chunk.next + i]!);
      chunk.next += n;
      taken += n;
      this.buffered -= n;
      if (chunk.next < chunk.messages.length) kept.push(chunk);
    }
    this.chunks = kept;
    return out;
  }

  /**
   * `take`, waiting up to `timeoutMs` (0: not at all) for something to take: empty when nothing came in time, or
   * when the signal aborted or the buffer closed first.
   */
  async poll(
    max: number,
    held: (pq: ProcessQueue) => boolean,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<Map<ProcessQueue, ConsumedMessage[]>> {
    // Not AbortSignal.timeout: Node holds such a signal weakly, so inside AbortSignal.any a garbage collection can
    // take it before it fires, and the poll would never return (seen on Node 20.20). This timer holds its controller.
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), Math.max(1, timeoutMs));
    const deadline = AbortSignal.any([timeout.signal, signal]);
    try {
      for (;;) {
        const taken = this.take(max, held);
        if (taken.size > 0 || deadline.aborted || this.closed || timeoutMs === 0) return taken;
        await this.whenSubmitted(deadline);
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /** Resolves when something was submitted, or when the signal aborts. */
  private whenSubmitted(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        this.waiters.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.waiters.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /** Wakes pollers (after a resume or a close). */
  wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  /** Wakes pollers for good: a poll waits no more. */
  close(): void {
    this.closed = true;
    this.wake();
  }
}
