import type { MessageRecord } from '../../model/message';
import type { RetryChannel } from '../../spi/transport.roles';
import { getOrCreate } from '../../util/get-or-create';
import type { ConsumeCall } from './consume-call';
import type { Accepted, DispatchingConsumeService } from '../queue/consume-service';
import type { ConsumedMessage } from '../../model/consumed-message';
import { ElasticPool } from './elastic-pool';
import { FailureHandoff } from './failure-handoff';
import type { GroupContext } from '../queue/group-context';
import { type CallOutcome, type HandlerInvoker, NOT_STARTED, isPromiseLike } from './handler-invoker';
import { toError } from '../../util/deferred';
import type { ProcessQueue } from '../queue/process-queue';
import type { QueueLockManager } from '../queue/queue-lock-manager';
import type { QueueWork } from '../queue/queue-work';

/** What one queue has waiting, in offset order. */
interface OrderlyBuffer {
  items: ConsumedMessage[];
  head: number;
}

/** RocketMQ's MAX_TIME_CONSUME_CONTINUOUSLY is not needed: each batch is its own pool task, so queues interleave. */
const INT_MAX = 2 ** 31 - 1;

/** A result of `complete`: the delay before the queue's next batch (0: at once). */
type NextBatchDelay = number;

/**
 * RocketMQ's ConsumeMessageOrderlyService: the messages of one queue are handled one batch at a time, in offset
 * order; in CLUSTERING only while this member holds the queue's broker lock. A failed batch (a throw,
 * SUSPEND_CURRENT_QUEUE_A_MOMENT or RECONSUME_LATER) stays at the head of its queue and is tried again after
 * suspendCurrentQueueTimeMillis; past maxReconsumeTimes (unlimited by default) it goes to the DLQ and the queue
 * moves on. Different queues run in parallel, up to consumeThreadMax batches at a time.
 */
export class OrderlyConsumeService implements DispatchingConsumeService {
  private readonly pool: ElasticPool<ConsumeCall>;
  private readonly buffers = new Map<ProcessQueue, OrderlyBuffer>();
  /** Queues with a batch scheduled or running: at most one per queue. */
  private readonly scheduled = new Set<ProcessQueue>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly failures: FailureHandoff;
  private readonly maxReconsumeTimes: number;

  constructor(
    private readonly ctx: GroupContext,
    private readonly invoker: HandlerInvoker,
    private readonly work: QueueWork,
    retry: RetryChannel | undefined,
    /** Present in CLUSTERING: a batch runs only while its queue's lock is valid. */
    private readonly locks: QueueLockManager | undefined,
  ) {
    const { options } = ctx;
    this.pool = new ElasticPool(options.consumeThreadMin, options.consumeThreadMax, (call) => this.run(call));
    this.failures = new FailureHandoff(ctx, retry, () => undefined);
    this.maxReconsumeTimes = options.maxReconsumeTimes === -1 ? INT_MAX : options.maxReconsumeTimes;
  }

  get inFlight(): number {
    return this.invoker.inFlight;
  }
  get peakInFlight(): number {
    return this.pool.peakInFlight;
  }
  get queued(): number {
    let n = 0;
    for (const b of this.buffers.values()) n += b.items.length - b.head;
    return n;
  }

  submit(pq: ProcessQueue, records: readonly MessageRecord[]): Accepted {
    const buffer = getOrCreate(this.buffers, pq, () => ({ items: [], head: 0 }));
    const before = buffer.items.length;
    const bytes = this.work.intake(pq, records, buffer.items);
    this.schedule(pq, 0);
    return { count: buffer.items.length - before, bytes };
  }

  pauseDispatch(): Promise<void> {
    return this.pool.hold();
  }

  resumeDispatch(): void {
    this.pool.release();
  }

  abandon(pqs: ReadonlySet<ProcessQueue>, reason: Error): number {
    return this.invoker.abortRunning(pqs, reason);
  }

  discardQueued(pq: ProcessQueue): void {
    this.buffers.delete(pq);
    // A batch still waiting in the pool (a pause holds it) will not run: drop it, so it keeps neither its messages
    // nor the queue scheduled until the resume. A running one stays scheduled and settles as usual.
    let waiting = false;
    this.pool.discard((call) => {
      if (call.pq !== pq) return false;
      waiting = true;
      return true;
    });
    if (waiting) this.scheduled.delete(pq);
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.failures.close();
  }

  /** The batch is over: the queue's next one is scheduled after `next` (an error's delay when undefined). */
  private settled(call: ConsumeCall, next: NextBatchDelay | undefined): void {
    this.pool.settle(call);
    this.scheduled.delete(call.pq);
    if (call.pq.active) this.schedule(call.pq, next ?? this.ctx.profile.pullErrorDelayMs);
  }

  private schedule(pq: ProcessQueue, delayMs: number): void {
    if (this.scheduled.has(pq)) return;
    this.scheduled.add(pq);
    if (delayMs <= 0) {
      this.enqueue(pq);
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.enqueue(pq);
    }, delayMs);
    this.timers.add(timer);
  }

  private enqueue(pq: ProcessQueue): void {
    const buffer = this.buffers.get(pq);
    if (!pq.active || !buffer || buffer.head >= buffer.items.length) {
      this.scheduled.delete(pq);
      return;
    }
    const binding = this.invoker.bindingOf(pq, buffer.items[buffer.head]!.record);
    const size = Math.min(
      binding?.batch ? this.ctx.options.consumeMessageBatchMaxSize : 1,
      buffer.items.length - buffer.head,
    );
    this.pool.submit(this.invoker.call(pq, buffer.items, buffer.head, buffer.head + size, binding));
  }

  private run(call: ConsumeCall): Promise<void> | void {
    const { locks } = this;
    if (locks && call.pq.active && !locks.isValid(call.pq)) return this.relock(call, locks);
    return this.invokeAndAct(call);
  }

  /** One batch through the invoker, then its outcome acted on. Never rejects. */
  private async invokeAndAct(call: ConsumeCall): Promise<void> {
    let status: unknown;
    let error: Error | undefined;
    try {
      status = this.invoker.begin(call);
      if (status === NOT_STARTED) return this.settled(call, undefined);
      if (isPromiseLike(status)) status = await status;
    } catch (e) {
      error = toError(e);
    }
    let outcome = this.invoker.end(call, status, error);
    if (outcome instanceof Promise) outcome = await outcome;
    return this.act(call, outcome);
  }

  /** Success (or all dead-lettered): the batch leaves its queue at once; a failure suspends the queue. */
  private act(call: ConsumeCall, outcome: CallOutcome | undefined): Promise<void> | void {
    if (!outcome) return this.settled(call, undefined);
    const { acked } = outcome;
    if (acked === call.size) return this.over(call, acked, this.commit(call));
    return this.suspendOrDeadLetter(call).then(
      (next) => this.over(call, acked, next === 0 ? this.commit(call) : next),
      (error: unknown) => {
        this.invoker.settleFailed(call, error);
        this.settled(call, undefined);
      },
    );
  }

  private over(call: ConsumeCall, acked: number, next: NextBatchDelay): void {
    this.invoker.settle(call, acked);
    this.settled(call, next);
  }

  /** RocketMQ's tryLockLaterAndReconsume: lock now, try the batch again soon if granted, a while later if not. */
  private async relock(call: ConsumeCall, locks: QueueLockManager): Promise<void> {
    const lockedAt = await locks.lock(call.pq.mq);
    if (lockedAt !== undefined) locks.markLocked(call.pq, lockedAt);
    this.settled(call, call.pq.locked ? 10 : Math.min(3000, this.ctx.profile.lockRenewMs));
  }

  /**
   * A failed batch: RocketMQ's checkReconsumeTimes. Messages past maxReconsumeTimes go to the DLQ; if every message
   * of the batch went there the queue moves on (0), otherwise the batch is tried again after the suspend time.
   */
  private async suspendOrDeadLetter(call: ConsumeCall): Promise<NextBatchDelay> {
    const { ctx } = this;
    let remaining = 0;
    for (const m of call.messages()) {
      const deadLetter = m.reconsumeTimes >= this.maxReconsumeTimes && ctx.options.messageModel === 'CLUSTERING';
      if (deadLetter && (await this.failures.sendBack(m, -1, this.maxReconsumeTimes, 'dead-letter'))) continue;
      m.localReconsumeTimes++;
      remaining++;
    }
    if (remaining === 0) return 0;
    const requested = call.suspendCurrentQueueTimeMillis;
    const suspend = requested === -1 ? ctx.options.suspendCurrentQueueTimeMillis : requested;
    return Math.min(30_000, Math.max(10, suspend));
  }

  /** The batch leaves its queue and the offset moves (increaseOnly = false in Java). */
  private commit(call: ConsumeCall): NextBatchDelay {
    const { pq } = call;
    const buffer = this.buffers.get(pq);
    if (buffer) {
      buffer.head += call.size;
      if (buffer.head > 1024 && buffer.head * 2 > buffer.items.length) {
        buffer.items = buffer.items.slice(buffer.head);
        buffer.head = 0;
      }
    }
    call.finishIn(this.work);
    return 0;
  }
}
