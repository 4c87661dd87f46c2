import { TimeoutError } from '../../errors/timeout.error';
import { isRetryTopic } from '../../model/constants';
import type { MessageRecord } from '../../model/message';
import type { RetryChannel } from '../../spi/transport.roles';
import type { ConsumeCall } from './consume-call';
import type { Accepted, DispatchingConsumeService } from '../queue/consume-service';
import type { ConsumedMessage } from '../../model/consumed-message';
import { ElasticPool } from './elastic-pool';
import type { GroupContext } from '../queue/group-context';
import { type CallOutcome, type HandlerInvoker, NOT_STARTED, isPromiseLike } from './handler-invoker';
import { toError } from '../../util/deferred';
import type { ProcessQueue } from '../queue/process-queue';
import type { QueueWork } from '../queue/queue-work';
import { FailureHandoff } from './failure-handoff';

/**
 * RocketMQ's ConsumeMessageConcurrentlyService: pulled messages are cut into chunks (consumeMessageBatchMaxSize
 * for batch handlers, 1 otherwise) that run in parallel, in any order, between consumeThreadMin and
 * consumeThreadMax at a time. Successes leave the ProcessQueue and the committable offset moves; failures are
 * handed to the broker (see FailureHandoff), so nothing is dropped. Calls past consumeTimeout are given up and
 * retried.
 */
export class ConcurrentConsumeService implements DispatchingConsumeService {
  private readonly pool: ElasticPool<ConsumeCall>;
  private readonly failures: FailureHandoff;
  private readonly sweepTimer: NodeJS.Timeout;
  private readonly timeoutMs: number;
  private readonly sweepMs: number;

  constructor(
    private readonly ctx: GroupContext,
    private readonly invoker: HandlerInvoker,
    private readonly work: QueueWork,
    retry: RetryChannel | undefined,
  ) {
    const { options } = ctx;
    this.pool = new ElasticPool(options.consumeThreadMin, options.consumeThreadMax, (call) => this.run(call));
    this.failures = new FailureHandoff(ctx, retry, (pq, messages) => this.schedule(pq, messages));
    this.timeoutMs = options.consumeTimeout * 60_000;
    // RocketMQ sweeps every consumeTimeout minutes (so a call may run up to twice as long); this sweeps every
    // eighth of it, so a call runs at most a quarter longer (see sweepExpired).
    this.sweepMs = Math.min(60_000, Math.max(20, this.timeoutMs / 8));
    this.sweepTimer = setInterval(() => this.sweepExpired(), this.sweepMs);
    this.sweepTimer.unref();
  }

  get inFlight(): number {
    return this.pool.inFlight;
  }
  get peakInFlight(): number {
    return this.pool.peakInFlight;
  }
  get queued(): number {
    return this.pool.queued;
  }

  submit(pq: ProcessQueue, records: readonly MessageRecord[]): Accepted {
    const messages: ConsumedMessage[] = [];
    const bytes = this.work.intake(pq, records, messages);
    this.schedule(pq, messages);
    return { count: messages.length, bytes };
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
    this.pool.discard((call) => call.pq === pq);
  }

  close(): void {
    clearInterval(this.sweepTimer);
    this.failures.close();
  }

  /** The pool's worker: one call through the invoker, then its outcome acted on. Never rejects. */
  private async run(call: ConsumeCall): Promise<void> {
    let status: unknown;
    let error: Error | undefined;
    try {
      status = this.invoker.begin(call);
      if (status === NOT_STARTED) return this.pool.settle(call);
      if (isPromiseLike(status)) status = await status;
    } catch (e) {
      error = toError(e);
    }
    let outcome = this.invoker.end(call, status, error);
    if (outcome instanceof Promise) outcome = await outcome;
    return this.act(call, outcome);
  }

  /**
   * processConsumeResult: the first `acked` messages succeeded; the rest are handed back to the broker.
   * Synchronous when everything succeeded (the hot path); a promise only when failures must be sent back. Nothing
   * to act on (the queue was released first, or the sweep gave the call up): the call's slot is free, that is all.
   */
  private act(call: ConsumeCall, outcome: CallOutcome | undefined): Promise<void> | void {
    if (!outcome) return this.pool.settle(call);
    const { acked } = outcome;
    if (acked === call.size) {
      call.finishIn(this.work);
      return this.over(call, acked);
    }
    return this.completeWithFailures(call, acked).then(
      () => this.over(call, acked),
      (error: unknown) => {
        this.invoker.settleFailed(call, error);
        this.pool.settle(call);
      },
    );
  }

  private over(call: ConsumeCall, acked: number): void {
    this.invoker.settle(call, acked);
    this.pool.settle(call);
  }

  private schedule(pq: ProcessQueue, messages: readonly ConsumedMessage[]): void {
    if (messages.length === 0) return;
    if (!isRetryTopic(pq.mq.topic)) {
      this.submitChunks(pq, messages);
      return;
    }
    // A retry queue mixes messages of every subscribed topic: group them by their handler.
    const byTopic = new Map<string, ConsumedMessage[]>();
    for (const m of messages) {
      const list = byTopic.get(m.topic);
      if (list) list.push(m);
      else byTopic.set(m.topic, [m]);
    }
    for (const list of byTopic.values()) this.submitChunks(pq, list);
  }

  private submitChunks(pq: ProcessQueue, messages: readonly ConsumedMessage[]): void {
    const binding = this.invoker.bindingOf(pq, messages[0]!.record);
    const size = binding?.batch ? this.ctx.options.consumeMessageBatchMaxSize : 1;
    for (let i = 0; i < messages.length; i += size)
      this.pool.submit(this.invoker.call(pq, messages, i, Math.min(i + size, messages.length), binding));
  }

  private async completeWithFailures(call: ConsumeCall, acked: number): Promise<void> {
    const messages = call.messages();
    const finished = messages.slice(0, acked);
    const handedOff = await this.failures.handOff(call.pq, messages.slice(acked), call.delayLevelWhenNextConsume);
    for (const m of handedOff) finished.push(m);
    this.work.finish(call.pq, finished);
  }

  /**
   * consumeTimeout: calls running too long are given up, their slots freed and their messages retried. Calls carry
   * no start time (a clock read per call is too dear on the hot path): a call counts from the first sweep that saw
   * it running, at most one sweep after it started, and is given up once it ran timeoutMs after that, so between
   * consumeTimeout and consumeTimeout plus two sweeps (a quarter of it) after its start.
   */
  private sweepExpired(): void {
    const now = Date.now();
    const expired: ConsumeCall[] = [];
    for (const call of this.invoker.runningCalls()) {
      if (call.seenRunningAt === 0) call.seenRunningAt = now;
      else if (now - call.seenRunningAt >= this.timeoutMs) expired.push(call);
    }
    for (const call of expired) {
      // RocketMQ's cleanExpiredMsg sends an expired message back with delay level 3.
      call.delayLevelWhenNextConsume = 3;
      this.pool.settle(call);
      const timeout = new TimeoutError(
        `handler call of group ${this.ctx.group} ran past consumeTimeout (${this.ctx.options.consumeTimeout} min)`,
      );
      // Detached on purpose: the sweep must not wait for send-backs; act() never rejects.
      void this.act(call, this.invoker.expire(call, timeout));
    }
  }
}
