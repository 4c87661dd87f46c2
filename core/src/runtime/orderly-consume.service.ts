import { jsonCodec } from '../definition/json.codec';
import { ConsumeStatus, isRetryTopic } from '../model/constants';
import type { MessageRecord } from '../model/message';
import { toError } from '../util/deferred';
import { ConsumeCall } from './consume-call';
import type { ConsumeService, ConsumeServiceDeps } from './consume-service';
import { ConsumedMessage } from './consumed-message';
import { ElasticPool } from './elastic-pool';
import type { HandlerBinding } from './handler-binding';
import type { ProcessQueue } from './process-queue';

/** What one queue has waiting, in offset order. */
interface OrderlyBuffer {
  items: ConsumedMessage[];
  head: number;
}

/** RocketMQ's MAX_TIME_CONSUME_CONTINUOUSLY is not needed: each batch is its own pool task, so queues interleave. */
const INT_MAX = 2 ** 31 - 1;

/**
 * RocketMQ's ConsumeMessageOrderlyService: the messages of one queue are handled one batch at a time, in offset
 * order; in CLUSTERING only while this member holds the queue's broker lock. A failed batch (a throw,
 * SUSPEND_CURRENT_QUEUE_A_MOMENT or RECONSUME_LATER) stays at the head of its queue and is tried again after
 * suspendCurrentQueueTimeMillis; past maxReconsumeTimes (unlimited by default) it goes to the DLQ and the queue
 * moves on. Different queues run in parallel, up to consumeThreadMax batches at a time.
 */
export class OrderlyConsumeService implements ConsumeService {
  private readonly pool: ElasticPool<ConsumeCall>;
  private readonly buffers = new Map<ProcessQueue, OrderlyBuffer>();
  /** Queues with a batch scheduled or running: at most one per queue. */
  private readonly scheduled = new Set<ProcessQueue>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly maxReconsumeTimes: number;
  private running = 0;

  constructor(private readonly deps: ConsumeServiceDeps) {
    const { options } = deps;
    this.pool = new ElasticPool(options.consumeThreadMin, options.consumeThreadMax, (call) => this.run(call));
    this.maxReconsumeTimes = options.maxReconsumeTimes === -1 ? INT_MAX : options.maxReconsumeTimes;
  }

  get inFlight(): number {
    return this.running;
  }
  get peakInFlight(): number {
    return this.pool.peakInFlight;
  }
  get queued(): number {
    let n = 0;
    for (const b of this.buffers.values()) n += b.items.length - b.head;
    return n;
  }

  wrap(pq: ProcessQueue, record: MessageRecord, seq: number): ConsumedMessage {
    const binding = this.deps.handlers.get(isRetryTopic(pq.mq.topic) ? (record.properties['RETRY_TOPIC'] ?? record.topic) : pq.mq.topic);
    return new ConsumedMessage(record, pq.mq, binding?.codec ?? jsonCodec, seq);
  }

  submit(pq: ProcessQueue, messages: readonly ConsumedMessage[]): void {
    let buffer = this.buffers.get(pq);
    if (!buffer) this.buffers.set(pq, (buffer = { items: [], head: 0 }));
    for (const m of messages) buffer.items.push(m);
    this.schedule(pq, 0);
  }

  discardQueued(pq: ProcessQueue): void {
    this.buffers.delete(pq);
  }

  abortRunning(): number {
    return 0; // orderly calls are few and short-lived per queue; release waits for them (lockForceReleaseMs)
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private schedule(pq: ProcessQueue, delayMs: number): void {
    if (this.scheduled.has(pq)) return;
    this.scheduled.add(pq);
    const enqueue = (): void => {
      const buffer = this.buffers.get(pq);
      if (pq.state !== 'active' || !buffer || buffer.head >= buffer.items.length) {
        this.scheduled.delete(pq);
        return;
      }
      const binding = this.bindingOf(pq, buffer.items[buffer.head]!);
      const size = Math.min(binding?.batch ? this.deps.options.consumeMessageBatchMaxSize : 1, buffer.items.length - buffer.head);
      this.pool.submit(new ConsumeCall(this.deps.group, pq, buffer.items, buffer.head, buffer.head + size, binding));
    };
    if (delayMs <= 0) {
      enqueue();
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      enqueue();
    }, delayMs);
    this.timers.add(timer);
  }

  private bindingOf(pq: ProcessQueue, m: ConsumedMessage): HandlerBinding | undefined {
    return this.deps.handlers.get(isRetryTopic(pq.mq.topic) ? m.topic : pq.mq.topic);
  }

  private async run(call: ConsumeCall): Promise<void> {
    const { pq } = call;
    const { deps } = this;
    let next = 0; // delay before this queue's next batch; -1: nothing more to schedule now
    try {
      if (pq.state !== 'active') return;
      const locking = deps.lockManager;
      if (locking && deps.options.messageModel === 'CLUSTERING' && !locking.isValid(pq)) {
        // RocketMQ's tryLockLaterAndReconsume: lock now, retry soon if granted, a few seconds later if not.
        const lockedAt = await locking.lock(pq.mq);
        if (lockedAt !== undefined) locking.markLocked(pq, lockedAt);
        next = pq.locked ? 10 : Math.min(3000, deps.profile.lockRenewMs);
        return;
      }
      pq.inflight++;
      this.running++;
      call.startedAt = Date.now();
      let error: Error | undefined;
      let status: unknown;
      try {
        const { binding } = call;
        if (!binding) throw new Error(`no handler of group ${deps.group} subscribes topic ${call.first().topic}`);
        status = binding.call(binding.batch ? call.messages() : call.first(), call);
        if (status !== null && typeof (status as PromiseLike<unknown>)?.then === 'function') status = await status;
      } catch (e) {
        error = toError(e);
      } finally {
        this.running--;
      }
      try {
        const ok = !error && status !== ConsumeStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT && status !== ConsumeStatus.RECONSUME_LATER;
        if (error) deps.events.emit('consumer.error', { group: deps.group, where: 'handler', error, mq: pq.mq });
        next = ok ? 0 : await this.suspendOrDeadLetter(call);
        if (next === 0) this.commit(call);
        if (deps.events.has('consumer.consume')) {
          deps.events.emit('consumer.consume', { group: deps.group, mq: pq.mq, count: call.size, ok: ok ? call.size : 0, failed: ok ? 0 : call.size, durationMs: Date.now() - call.startedAt });
        }
      } finally {
        pq.handlerFinished();
      }
    } catch (e) {
      deps.events.emit('consumer.error', { group: deps.group, where: 'orderly-consume', error: toError(e), mq: pq.mq });
      next = deps.profile.pullErrorDelayMs;
    } finally {
      this.pool.settle(call);
      this.scheduled.delete(pq);
      if (next >= 0 && pq.state === 'active') this.schedule(pq, next);
    }
  }

  /**
   * A failed batch: RocketMQ's checkReconsumeTimes. Messages past maxReconsumeTimes go to the DLQ; if every message
   * of the batch went there the queue moves on (returns 0), otherwise the batch is tried again after the suspend
   * time (returns it).
   */
  private async suspendOrDeadLetter(call: ConsumeCall): Promise<number> {
    const { deps } = this;
    const messages = call.messages();
    let remaining = 0;
    for (const m of messages) {
      if (m.reconsumeTimes >= this.maxReconsumeTimes && deps.retry && deps.options.messageModel === 'CLUSTERING') {
        try {
          await deps.retry.sendBack({ group: deps.group, message: m.record, delayLevel: -1, maxReconsumeTimes: this.maxReconsumeTimes, timeoutMs: deps.profile.requestTimeoutMs });
          if (deps.events.has('consumer.retry')) {
            deps.events.emit('consumer.retry', { group: deps.group, msgId: m.msgId, topic: m.topic, reconsumeTimes: m.reconsumeTimes, delayLevel: -1, local: false });
          }
          continue;
        } catch (error) {
          deps.events.emit('consumer.error', { group: deps.group, where: 'dead-letter', error: toError(error), mq: call.mq });
        }
      }
      m.localReconsumeTimes++;
      remaining++;
    }
    if (remaining === 0) return 0;
    const requested = call.suspendCurrentQueueTimeMillis;
    const suspend = requested === -1 ? deps.options.suspendCurrentQueueTimeMillis : requested;
    return Math.min(30_000, Math.max(10, suspend));
  }

  /** Success (or all dead-lettered): the batch leaves its queue and the offset moves (increaseOnly = false in Java). */
  private commit(call: ConsumeCall): void {
    const { pq } = call;
    const buffer = this.buffers.get(pq);
    if (buffer) {
      buffer.head += call.size;
      if (buffer.head > 1024 && buffer.head * 2 > buffer.items.length) {
        buffer.items = buffer.items.slice(buffer.head);
        buffer.head = 0;
      }
    }
    if (pq.state === 'dropped') return;
    this.deps.budget.release(call.removeFrom(pq));
    const offset = pq.committableOffset();
    if (offset > pq.committedOffset) pq.committedOffset = offset;
  }
}
