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

/** What one handler call came to, for the consume service that ran it to act on. */
export interface CallOutcome {
  /** Its first `acked` messages succeeded: all of them when acked === call.size, none after a throw. */
  readonly acked: number;
  /** What the handler threw, or the consumeTimeout that gave the call up; undefined when it returned. */
  readonly error: Error | undefined;
  /** What the handler returned (a reply handler's reply, already sent). */
  readonly result: unknown;
}

/** A call's outcome: at once for a synchronous handler, later for one that returned a promise. */
export type PendingOutcome = CallOutcome | undefined | Promise<CallOutcome | undefined>;

/** What `begin` returns for a call whose queue was released before it started: nothing ran. */
export const NOT_STARTED: unique symbol = Symbol('not started');

/** Only what is awaitable is awaited: a sync handler costs no extra microtask. */
export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return value !== null && typeof (value as PromiseLike<unknown>)?.then === 'function';
}

/**
 * The one pipeline every handler call goes through, whatever the consume mode (docs/architecture.md#ownership-rules):
 * the binding lookup (a retry queue's messages carry their original topic), the payload codec, the hooks, the
 * handler awaited only when it returns a promise, errors normalised, `consumer.error` and `consumer.consume`, the
 * running-call table behind `ctx.signal` (aborted at consumeTimeout or at the stop deadline), and the queue's
 * in-flight count a release waits on. `invoke` returns what the call came to; the consume service that called it
 * decides what that means for the queue, then reports the call over with `settle` (or `settleFailed`). Calls go
 * one way, from the service to the invoker: nothing here calls back into a service.
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

  /**
   * Starts one call: the hooks and the handler. Returns what the handler returned (for an async handler its
   * promise, which the caller awaits and then hands to `end`), or NOT_STARTED when the queue was released before the
   * call started (the next owner consumes its messages from the committed offset). Throws what the handler threw
   * synchronously: hand it to `end` as the error. The consume service awaits the handler's promise itself, so a
   * call costs one promise of the engine's, not two (the `pipeline` bench's one-message-per-call rate showed it).
   */
  begin(call: ConsumeCall): unknown {
    const { pq } = call;
    if (!pq.active) return NOT_STARTED;
    pq.callStarted();
    // Date.now() costs about a sixth of a message's time on the hot path: taken for an event that reports it, and
    // for one call in sixteen (consumeRT).
    if (this.consumeEvents.listened || this.ctx.stats.timeThisCall()) call.startedAt = Date.now();
    this.track(call);
    return this.callHandler(call);
  }

  /**
   * What a started call came to, from what its handler returned (awaited) or threw: synchronously, except for a
   * reply handler's call, which resolves once the reply was sent. Undefined when there is nothing to act on: the
   * consumeTimeout sweep already gave the call up (`expire`).
   */
  end(call: ConsumeCall, status: unknown, error: Error | undefined): PendingOutcome {
    return this.outcome(call, status, error);
  }

  /**
   * `begin`, the await and `end` in one (for callers off the hot path): synchronously when the handler returned a
   * plain value or threw, as a promise when it returned one; undefined when there is nothing to act on. Never
   * rejects.
   */
  invoke(call: ConsumeCall): PendingOutcome {
    let status: unknown;
    try {
      status = this.begin(call);
    } catch (e) {
      return this.outcome(call, undefined, toError(e));
    }
    if (status === NOT_STARTED) return undefined;
    if (isPromiseLike(status)) return this.awaitOutcome(call, status);
    return this.outcome(call, status, undefined);
  }

  private async awaitOutcome(call: ConsumeCall, pending: PromiseLike<unknown>): Promise<CallOutcome | undefined> {
    let status: unknown;
    try {
      status = await pending;
    } catch (e) {
      return this.outcome(call, undefined, toError(e));
    }
    return this.outcome(call, status, undefined);
  }

  private outcome(call: ConsumeCall, status: unknown, error: Error | undefined): PendingOutcome {
    this.untrack(call);
    if (call.timedOut) return undefined; // expire() already gave the outcome
    // A reply handler's return value is its reply, never a consume status: only a throw fails it.
    if (error === undefined && call.binding?.reply) return this.replied(call, status);
    return this.judged(call, status, error, status);
  }

  /** The offset moves past a request only once its reply was sent or its failure reported. */
  private async replied(call: ConsumeCall, reply: unknown): Promise<CallOutcome> {
    await this.replies?.reply(call.first(), reply, call.binding!.codec);
    return this.judged(call, undefined, undefined, reply);
  }

  private judged(call: ConsumeCall, status: unknown, error: Error | undefined, result: unknown): CallOutcome {
    const ok =
      error === undefined &&
      status !== ConsumeStatus.RECONSUME_LATER &&
      status !== ConsumeStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT;
    const acked = !ok ? 0 : this.partialAck ? Math.max(-1, Math.min(call.ackIndex, call.size - 1)) + 1 : call.size;
    if (error) reportError(this.ctx, 'handler', error, call.mq);
    return { acked, error, result };
  }

  /**
   * consumeTimeout: gives up a running call (its signal aborts) and returns its outcome now, failed with `error`;
   * the handler's later result is ignored (its `invoke` comes to nothing).
   */
  expire(call: ConsumeCall, error: Error): CallOutcome {
    call.timedOut = true;
    this.untrack(call);
    call.abort(error);
    reportError(this.ctx, 'handler', error, call.mq);
    return { acked: 0, error, result: undefined };
  }

  /**
   * The service acted on the call's outcome: `consumer.consume`, the figures, and the queue's in-flight count (a
   * release waiting for idle handlers sees the offset already moved).
   */
  settle(call: ConsumeCall, acked: number): void {
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
    call.pq.callFinished();
  }

  /** Acting on the outcome failed (a send-back threw): reported, counted as failed, and the call is over. */
  settleFailed(call: ConsumeCall, error: unknown): void {
    reportError(this.ctx, 'consume-result', error, call.mq);
    this.count(call, 0, -1);
    call.pq.callFinished();
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
      if (isPromiseLike(status)) status = await status;
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
