import { jsonCodec } from '../definition/json.codec';
import { TimeoutError } from '../errors/timeout.error';
import { ConsumeStatus, isRetryTopic } from '../model/constants';
import type { MessageRecord } from '../model/message';
import { toError } from '../util/deferred';
import { ConsumeCall } from './consume-call';
import type { ConsumeService, ConsumeServiceDeps } from './consume-service';
import { ConsumedMessage } from './consumed-message';
import { ElasticPool } from './elastic-pool';
import type { HandlerBinding } from './handler-binding';
import type { ProcessQueue } from './process-queue';

/**
 * RocketMQ's ConsumeMessageConcurrentlyService: pulled messages are cut into chunks (consumeMessageBatchMaxSize
 * for batch handlers, 1 otherwise) that run in parallel, in any order, between consumeThreadMin and
 * consumeThreadMax at a time. Results: successes leave the ProcessQueue and the committable offset moves; failures
 * are sent back to the broker (which re-delivers them on %RETRY%<group>, then dead-letters them), or retried
 * locally after a delay when the send-back fails, so nothing is dropped.
 */
export class ConcurrentConsumeService implements ConsumeService {
  private readonly pool: ElasticPool<ConsumeCall>;
  /** Running calls by slot (no Set: add/delete on every call showed in profiles). */
  private readonly running: (ConsumeCall | undefined)[] = [];
  private readonly freeSlots: number[] = [];
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private readonly sweepTimer: NodeJS.Timeout;
  private readonly timeoutMs: number;
  private readonly maxReconsumeTimes: number;

  constructor(private readonly deps: ConsumeServiceDeps) {
    const { options } = deps;
    this.pool = new ElasticPool(options.consumeThreadMin, options.consumeThreadMax, (call) => this.run(call));
    this.timeoutMs = options.consumeTimeout * 60_000;
    this.maxReconsumeTimes = options.maxReconsumeTimes === -1 ? 16 : options.maxReconsumeTimes;
    // RocketMQ sweeps every consumeTimeout minutes (so a call may run up to twice as long); sweep more often.
    this.sweepTimer = setInterval(() => this.sweepExpired(), Math.min(60_000, Math.max(20, this.timeoutMs / 4)));
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

  wrap(pq: ProcessQueue, record: MessageRecord, seq: number): ConsumedMessage {
    // Per message: the codec of an ordinary queue is looked up once and cached on it.
    let codec = pq.codec;
    if (!codec) {
      codec = this.bindingFor(pq, record)?.codec ?? jsonCodec;
      if (!isRetryTopic(pq.mq.topic)) pq.codec = codec;
    }
    return new ConsumedMessage(record, pq.mq, codec, seq);
  }

  submit(pq: ProcessQueue, messages: readonly ConsumedMessage[]): void {
    if (messages.length === 0) return;
    if (!isRetryTopic(pq.mq.topic)) {
      this.submitChunks(pq, messages, this.deps.handlers.get(pq.mq.topic));
      return;
    }
    // A retry queue mixes messages of every subscribed topic: group them by their handler.
    const byTopic = new Map<string, ConsumedMessage[]>();
    for (const m of messages) {
      const list = byTopic.get(m.topic);
      if (list) list.push(m);
      else byTopic.set(m.topic, [m]);
    }
    for (const [topic, list] of byTopic) this.submitChunks(pq, list, this.deps.handlers.get(topic));
  }

  /** Forgets the not-yet-started work of a released queue; those messages stay unfinished, so the offset holds. */
  discardQueued(pq: ProcessQueue): void {
    this.pool.discard((call) => call.pq === pq);
  }

  /** Aborts the signal of every running call of these queues (stop() gave up waiting for them). */
  abortRunning(pqs: ReadonlySet<ProcessQueue>, reason: Error): number {
    let count = 0;
    for (const call of this.running) {
      if (!call || !pqs.has(call.pq)) continue;
      call.abort(reason);
      count++;
    }
    return count;
  }

  close(): void {
    clearInterval(this.sweepTimer);
    for (const timer of this.retryTimers) clearTimeout(timer);
    this.retryTimers.clear();
  }

  private bindingFor(pq: ProcessQueue, record: MessageRecord): HandlerBinding | undefined {
    const { handlers } = this.deps;
    if (!isRetryTopic(pq.mq.topic)) return handlers.get(pq.mq.topic);
    return handlers.get(record.properties['RETRY_TOPIC'] ?? record.topic);
  }

  private submitChunks(pq: ProcessQueue, messages: readonly ConsumedMessage[], binding: HandlerBinding | undefined): void {
    const size = binding?.batch ? this.deps.options.consumeMessageBatchMaxSize : 1;
    const { group } = this.deps;
    for (let i = 0; i < messages.length; i += size) {
      this.pool.submit(new ConsumeCall(group, pq, messages, i, Math.min(i + size, messages.length), binding));
    }
  }

  /** Runs one call; reports completion to the pool itself and never rejects. */
  private async run(call: ConsumeCall): Promise<void> {
    const { pq } = call;
    // A released queue's waiting work is not started: the new owner consumes it from the committed offset.
    if (pq.state !== 'active') {
      this.pool.settle(call);
      return;
    }
    pq.inflight++;
    call.startedAt = Date.now();
    this.track(call);
    let status: unknown;
    let error: Error | undefined;
    try {
      status = this.invoke(call);
      // Only await what is awaitable: a sync handler costs no extra microtasks.
      if (status !== null && typeof (status as PromiseLike<unknown>)?.then === 'function') status = await status;
    } catch (e) {
      error = toError(e);
    }
    this.untrack(call);
    if (call.timedOut) return; // the sweep already retried these messages and released the slot
    try {
      const pending = this.complete(call, error, status);
      if (pending) await pending;
    } catch (e) {
      this.deps.events.emit('consumer.error', { group: this.deps.group, where: 'consume-result', error: toError(e), mq: pq.mq });
    } finally {
      pq.handlerFinished();
      this.pool.settle(call);
    }
  }

  private invoke(call: ConsumeCall): unknown {
    const { binding } = call;
    if (!binding) throw new Error(`no handler of group ${this.deps.group} subscribes topic ${call.first().topic}`);
    const input = binding.batch ? call.messages() : call.first();
    const hooks = this.deps.hooks;
    if (hooks.length === 0) return binding.call(input, call);
    const invocation = {
      group: this.deps.group,
      mq: call.mq,
      messages: binding.batch ? (input as ConsumedMessage[]) : [input as ConsumedMessage],
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

  /**
   * processConsumeResult: work out the ack index, send failures back, remove the rest and move the offset.
   * Synchronous when everything succeeded (the hot path); a promise only when failures must be sent back.
   */
  private complete(call: ConsumeCall, error: Error | undefined, status: unknown): Promise<void> | undefined {
    const n = call.size;
    const ok = error === undefined && status !== ConsumeStatus.RECONSUME_LATER && status !== ConsumeStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT;
    const ackIndex = ok ? Math.max(-1, Math.min(call.ackIndex, n - 1)) : -1;
    if (error) this.deps.events.emit('consumer.error', { group: this.deps.group, where: 'handler', error, mq: call.mq });
    if (ackIndex === n - 1) {
      if (call.pq.state !== 'dropped') this.released(call.pq, call.removeFrom(call.pq));
      this.emitConsume(call, n);
      return undefined;
    }
    return this.completeWithFailures(call, ackIndex);
  }

  private async completeWithFailures(call: ConsumeCall, ackIndex: number): Promise<void> {
    const messages = call.messages();
    const finished = messages.slice(0, ackIndex + 1);
    const handedOff = await this.handleFailures(call.pq, messages.slice(ackIndex + 1), call.delayLevelWhenNextConsume);
    for (const m of handedOff) finished.push(m);
    if (call.pq.state !== 'dropped') this.released(call.pq, call.pq.removeItems(finished, 0, finished.length));
    this.emitConsume(call, ackIndex + 1);
  }

  private emitConsume(call: ConsumeCall, ok: number): void {
    const { events, group } = this.deps;
    if (events.has('consumer.consume')) {
      events.emit('consumer.consume', { group, mq: call.mq, count: call.size, ok, failed: call.size - ok, durationMs: Date.now() - call.startedAt });
    }
  }

  /** Returns the failed messages that were handed to the broker (or skipped, in BROADCASTING). */
  private async handleFailures(pq: ProcessQueue, failed: ConsumedMessage[], delayLevel: number): Promise<ConsumedMessage[]> {
    const { deps } = this;
    // A queue being released keeps its failures unfinished: the next owner consumes them from the offset.
    if (pq.state !== 'active') return [];
    if (deps.options.messageModel === 'BROADCASTING') {
      // RocketMQ drops failed broadcast messages after logging them; the error event is that log.
      for (const m of failed) {
        deps.events.emit('consumer.error', { group: deps.group, where: 'broadcast-failure-skipped', error: new Error(`message ${m.msgId} failed and is skipped (BROADCASTING has no retry)`), mq: pq.mq });
      }
      return failed;
    }
    const handedOff: ConsumedMessage[] = [];
    const local: ConsumedMessage[] = [];
    await Promise.all(
      failed.map(async (m) => {
        if (await this.sendBack(m, delayLevel)) handedOff.push(m);
        else local.push(m);
      }),
    );
    if (local.length > 0) this.retryLocally(pq, local);
    return handedOff;
  }

  private async sendBack(m: ConsumedMessage, delayLevel: number): Promise<boolean> {
    const { retry, group, events, profile } = this.deps;
    if (!retry) return false;
    try {
      await retry.sendBack({ group, message: m.record, delayLevel, maxReconsumeTimes: this.maxReconsumeTimes, timeoutMs: profile.requestTimeoutMs });
      if (events.has('consumer.retry')) {
        events.emit('consumer.retry', { group, msgId: m.msgId, topic: m.topic, reconsumeTimes: m.reconsumeTimes, delayLevel, local: false });
      }
      return true;
    } catch (error) {
      events.emit('consumer.error', { group, where: 'send-back', error: toError(error), mq: m.messageQueue });
      return false;
    }
  }

  /** RocketMQ's fallback when send-back fails: consume the messages again here after a delay. */
  private retryLocally(pq: ProcessQueue, messages: ConsumedMessage[]): void {
    for (const m of messages) {
      m.localReconsumeTimes++;
      if (this.deps.events.has('consumer.retry')) {
        this.deps.events.emit('consumer.retry', { group: this.deps.group, msgId: m.msgId, topic: m.topic, reconsumeTimes: m.reconsumeTimes, delayLevel: 0, local: true });
      }
    }
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      if (pq.state === 'active') this.submit(pq, messages.filter((m) => pq.contains(m.seq)));
    }, this.deps.profile.localRetryDelayMs);
    this.retryTimers.add(timer);
  }

  /** After finished messages left the ProcessQueue: free their bytes and move the committable offset. */
  private released(pq: ProcessQueue, bytes: number): void {
    this.deps.budget.release(bytes);
    const offset = pq.committableOffset();
    if (offset > pq.committedOffset) pq.committedOffset = offset;
  }

  private track(call: ConsumeCall): void {
    const slot = this.freeSlots.pop() ?? this.running.length;
    this.running[slot] = call;
    call.slot = slot;
  }

  private untrack(call: ConsumeCall): void {
    if (call.slot < 0) return;
    this.running[call.slot] = undefined;
    this.freeSlots.push(call.slot);
    call.slot = -1;
  }

  /** consumeTimeout: calls running too long are aborted and their messages retried; their slots are freed. */
  private sweepExpired(): void {
    const now = Date.now();
    for (const call of this.running) {
      if (!call || call.timedOut || now - call.startedAt <= this.timeoutMs) continue;
      call.timedOut = true;
      this.untrack(call);
      const error = new TimeoutError(`handler call of group ${this.deps.group} ran past consumeTimeout (${this.deps.options.consumeTimeout} min)`);
      call.abort(error);
      // RocketMQ's cleanExpiredMsg sends an expired message back with delay level 3.
      call.delayLevelWhenNextConsume = 3;
      this.pool.settle(call);
      void this.completeExpired(call, error);
    }
  }

  /** Detached on purpose (the sweep must not wait for send-backs); it cannot reject. */
  private async completeExpired(call: ConsumeCall, error: Error): Promise<void> {
    try {
      await this.complete(call, error, undefined);
    } catch (e) {
      this.deps.events.emit('consumer.error', { group: this.deps.group, where: 'consume-timeout', error: toError(e), mq: call.mq });
    } finally {
      call.pq.handlerFinished();
    }
  }
}
