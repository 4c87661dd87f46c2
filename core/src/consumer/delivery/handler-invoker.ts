import { jsonCodec } from '../../definition/json.codec';
import { ConsumeStatus, MessageConst, isRetryTopic } from '../../model/constants';
import type { MessageRecord } from '../../model/message';
import type { MessageQueue } from '../../model/message-queue';
import type { DirectConsumeResult } from '../../spi/transport.roles';
import { coarseNow } from '../../util/coarse-clock';
import { toError } from '../../util/deferred';
import { ConsumeCall } from './consume-call';
import type { ConsumeHook, ConsumeInvocation } from '../../spi/consume-hook';
import { countConsumed } from '../queue/consume-stats';
import { ConsumedMessage } from '../../model/consumed-message';
import type { GroupContext } from '../queue/group-context';
import { reportError } from '../../events/report-error';
import type { HandlerBinding } from './handler-binding';
import type { ProcessQueue } from '../queue/process-queue';
import type { ReplySender } from './reply-sender';

/** What a consume service does with the calls the invoker runs: the part that differs between schedules. */
export interface CallScheduler<R> {
  /**
   * Processes a finished call: its first `acked` messages succeeded (all of them when acked === call.size).
   * Synchronous when nothing has to be sent, which is the hot path.
   */
  complete(call: ConsumeCall, acked: number, error: Error | undefined): R | Promise<R>;
  /** The call is over: completed (with `complete`'s result), skipped (its queue was released) or failed (undefined). */
  settled(call: ConsumeCall, result: R | undefined): void;
}

/**
 * The one pipeline every handler call goes through, whatever the consume mode (docs/architecture.md#ownership-rules):
 * the binding lookup (a retry queue's messages carry their original topic), the payload codec, the hooks, the
 * handler awaited only when it returns a promise, errors normalised, `consumer.error` and `consumer.consume`, the
 * running-call table behind `ctx.signal` (aborted at consumeTimeout or at the stop deadline), and the queue's
 * in-flight count a release waits on. The consume services only schedule calls and decide what a result means.
 */
export class HandlerInvoker {
  /** Running calls by slot (no Set: add/delete on every call showed in profiles). */
  private readonly running: (ConsumeCall | undefined)[] = [];
  private readonly freeSlots: number[] = [];
  private runningCount = 0;
  /** CONCURRENTLY honours ctx.ackIndex; ORDERLY batches succeed or fail whole, as in RocketMQ. */
  private readonly partialAck: boolean;
  private readonly consumeEvents: { readonly listened: boolean };

  constructor(
    private readonly ctx: GroupContext,
    /** Handlers by (original) topic. */
    private readonly handlers: ReadonlyMap<string, HandlerBinding>,
    private readonly hooks: readonly ConsumeHook[],
    /** Sends the replies of `reply: true` handlers (present when the group has one). */
    private readonly replies?: ReplySender,
  ) {
    this.partialAck = ctx.options.consumeMode === 'CONCURRENTLY';
    this.consumeEvents = ctx.events.listening('consumer.consume');
  }

  /** Handler calls running now (between the handler's start and its result). */
  get inFlight(): number {
    return this.runningCount;
  }

  /** The handler for a record of this queue; undefined when no subscription of the group covers its topic. */
  bindingOf(pq: ProcessQueue, record: MessageRecord): HandlerBinding | undefined {
    if (!isRetryTopic(pq.mq.topic)) return this.handlers.get(pq.mq.topic);
    return this.handlers.get(record.properties[MessageConst.RETRY_TOPIC] ?? record.topic);
  }

  /** Puts pulled records into the queue and appends the accepted ones, wrapped, to `into`; returns their bytes. */
  accept(pq: ProcessQueue, records: readonly MessageRecord[], into: ConsumedMessage[]): number {
    return pq.put(records, (record, seq) => into.push(this.wrap(pq, record, seq)));
  }

  /** A call over messages[start, end), all of one handler (default: the first message's). */
  call(
    pq: ProcessQueue,
    messages: readonly ConsumedMessage[],
    start: number,
    end: number,
    binding = this.bindingOf(pq, messages[start]!.record),
  ): ConsumeCall {
    return new ConsumeCall(this.ctx.group, pq, messages, start, end, binding);
  }

  /** Runs one call through the pipeline, then hands its outcome to the scheduler. Never rejects. */
  async invoke<R>(call: ConsumeCall, scheduler: CallScheduler<R>): Promise<void> {
    const { pq } = call;
    // A released queue's waiting work is not started: the next owner consumes it from the committed offset.
    if (!pq.active) {
      scheduler.settled(call, undefined);
      return;
    }
    pq.inflight++;
    // Date.now() costs about a sixth of a message's time on the hot path: taken for an event that reports it, and
    // for one call in sixteen (consumeRT).
    if (this.consumeEvents.listened || this.ctx.stats.timeThisCall()) call.startedAt = Date.now();
    this.track(call);
    let status: unknown;
    let error: Error | undefined;
    try {
      status = this.callHandler(call);
      // Only await what is awaitable: a sync handler costs no extra microtasks.
      if (status !== null && typeof (status as PromiseLike<unknown>)?.then === 'function') status = await status;
    } catch (e) {
      error = toError(e);
    }
    this.untrack(call);
    if (call.timedOut) return; // expire() already completed the call
    // A reply handler's return value is its reply, never a consume status: only a throw fails it.
    if (error === undefined && call.binding?.reply) {
      await this.replies?.reply(call.first(), status, call.binding.codec);
      status = undefined;
    }
    const ok =
      error === undefined &&
      status !== ConsumeStatus.RECONSUME_LATER &&
      status !== ConsumeStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT;
    const acked = !ok ? 0 : this.partialAck ? Math.max(-1, Math.min(call.ackIndex, call.size - 1)) + 1 : call.size;
    const pending = this.finish(call, acked, error, scheduler);
    if (pending) await pending;
  }

  /**
   * consumeTimeout: gives up a running call (its signal aborts) and completes it now as failed with `error`; the
   * handler's later result is ignored.
   */
  async expire<R>(call: ConsumeCall, error: Error, scheduler: CallScheduler<R>): Promise<void> {
    call.timedOut = true;
    this.untrack(call);
    call.abort(error);
    await this.finish(call, 0, error, scheduler);
  }

  /** Aborts the signal of every running call of these queues (a release or stop gave up waiting). */
  abortRunning(pqs: ReadonlySet<ProcessQueue>, reason: Error): number {
    let count = 0;
    for (const call of this.running) {
      if (!call || !pqs.has(call.pq)) continue;
      call.abort(reason);
      count++;
    }
    return count;
  }

  /** Every running call (for the consumeTimeout sweep). */
  *runningCalls(): IterableIterator<ConsumeCall> {
    for (const call of this.running) if (call) yield call;
  }

  private wrap(pq: ProcessQueue, record: MessageRecord, seq: number): ConsumedMessage {
    // Per message: the codec of an ordinary queue is looked up once and cached on it.
    let codec = pq.codec;
    if (!codec) {
      codec = this.bindingOf(pq, record)?.codec ?? jsonCodec;
      if (!isRetryTopic(pq.mq.topic)) pq.codec = codec;
    }
    return new ConsumedMessage(record, pq.mq, codec, seq, this.ctx.namespace);
  }

  /**
   * CONSUME_MESSAGE_DIRECTLY: the handler once on `record` of `mq`, through the hooks, outside any queue: nothing
   * is cached, committed, retried or counted.
   */
  async consumeDirectly(record: MessageRecord, mq: MessageQueue): Promise<DirectConsumeResult> {
    const startedAt = Date.now();
    const queue = { mq };
    const binding = this.handlers.get(
      isRetryTopic(mq.topic) ? (record.properties[MessageConst.RETRY_TOPIC] ?? record.topic) : mq.topic,
    );
    const message = new ConsumedMessage(record, mq, binding?.codec ?? jsonCodec, 0, this.ctx.namespace);
    const call = new ConsumeCall(this.ctx.group, queue, [message], 0, 1, binding);
    const order = this.ctx.options.consumeMode === 'ORDERLY';
    try {
      let status = this.callHandler(call);
      if (status !== null && typeof (status as PromiseLike<unknown>)?.then === 'function') status = await status;
      const later = status === ConsumeStatus.RECONSUME_LATER || status === ConsumeStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT;
      return { order, result: later ? 'CR_LATER' : 'CR_SUCCESS', spentTimeMs: Date.now() - startedAt };
    } catch (e) {
      const error = toError(e);
      return {
        order,
        result: 'CR_THROW_EXCEPTION',
        remark: `${error.name}: ${error.message}`,
        spentTimeMs: Date.now() - startedAt,
      };
    }
  }

  private callHandler(call: ConsumeCall<{ readonly mq: MessageQueue }>): unknown {
    const { binding } = call;
    if (!binding) throw new Error(`no handler of group ${this.ctx.group} subscribes topic ${call.first().topic}`);
    const input = binding.batch ? call.messages() : call.first();
    const { hooks } = this;
    if (hooks.length === 0) return binding.call(input, call);
    const invocation: ConsumeInvocation = {
      group: this.ctx.group,
      namespace: this.ctx.namespace,
      messageModel: this.ctx.options.messageModel,
      mq: call.mq,
      messages: binding.batch ? (input as ConsumedMessage[]) : [input as ConsumedMessage],
      batch: binding.batch,
      context: call,
      handler: { className: binding.className, method: binding.method },
    };
    let proceed = async (): Promise<unknown> => binding.call(input, call);
    for (let i = hooks.length - 1; i >= 0; i--) {
      const hook = hooks[i]!;
      const next = proceed;
      proceed = () => hook.around(invocation, next);
    }
    return proceed();
  }

  /** The scheduler's completion, then the event and the queue's in-flight count; a promise only when it is async. */
  private finish<R>(
    call: ConsumeCall,
    acked: number,
    error: Error | undefined,
    scheduler: CallScheduler<R>,
  ): Promise<void> | undefined {
    if (error) reportError(this.ctx, 'handler', error, call.mq);
    let result: R | Promise<R>;
    try {
      result = scheduler.complete(call, acked, error);
    } catch (e) {
      this.failed(call, e, scheduler);
      return undefined;
    }
    if (result !== null && typeof (result as PromiseLike<R>)?.then === 'function') {
      return (result as Promise<R>).then(
        (r) => this.done(call, acked, r, scheduler),
        (e: unknown) => this.failed(call, e, scheduler),
      );
    }
    this.done(call, acked, result as R, scheduler);
    return undefined;
  }

  private done<R>(call: ConsumeCall, acked: number, result: R, scheduler: CallScheduler<R>): void {
    const durationMs = call.startedAt > 0 ? Date.now() - call.startedAt : -1;
    if (this.consumeEvents.listened) {
      const { events, group } = this.ctx;
      events.emit('consumer.consume', {
        group,
        mq: call.mq,
        count: call.size,
        ok: acked,
        failed: call.size - acked,
        durationMs: Math.max(0, durationMs),
      });
    }
    this.count(call, acked, durationMs);
    call.pq.handlerFinished();
    scheduler.settled(call, result);
  }

  private failed<R>(call: ConsumeCall, error: unknown, scheduler: CallScheduler<R>): void {
    reportError(this.ctx, 'consume-result', error, call.mq);
    this.count(call, 0, -1);
    call.pq.handlerFinished();
    scheduler.settled(call, undefined);
  }

  private count(call: ConsumeCall, acked: number, durationMs: number): void {
    countConsumed(this.ctx.stats, call.pq, acked, call.size - acked, durationMs, coarseNow());
  }

  private track(call: ConsumeCall): void {
    const slot = this.freeSlots.pop() ?? this.running.length;
    this.running[slot] = call;
    call.slot = slot;
    this.runningCount++;
  }

  private untrack(call: ConsumeCall): void {
    if (call.slot < 0) return;
    this.running[call.slot] = undefined;
    this.freeSlots.push(call.slot);
    call.slot = -1;
    this.runningCount--;
  }
}
