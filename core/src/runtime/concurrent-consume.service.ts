import { ConsumeStatus, isRetryTopic } from '../model/constants';
import type { MessageRecord } from '../model/message';
import { TimeoutError } from '../errors/timeout.error';
import { toError } from '../util/deferred';
import { ConsumeContextImpl } from './consume-context';
import { ConsumedMessage } from './consumed-message';
import { ElasticPool, type PoolTask } from './elastic-pool';
import type { HandlerBinding } from './handler-binding';
import type { ProcessQueue } from './process-queue';
import type { ConsumeServiceDeps, ConsumeService } from './consume-service';
import { jsonCodec } from '../definition/json.codec';

interface ConsumeTask extends PoolTask {
  readonly pq: ProcessQueue;
  readonly messages: ConsumedMessage[];
  readonly binding: HandlerBinding | undefined;
  startedAt: number;
  context: ConsumeContextImpl | undefined;
  timedOut: boolean;
}

/**
 * RocketMQ's ConsumeMessageConcurrentlyService: pulled messages are cut into chunks (consumeMessageBatchMaxSize
 * for batch handlers, 1 otherwise) that run in parallel, in any order, between consumeThreadMin and
 * consumeThreadMax at a time. Results: successes leave the ProcessQueue and the committable offset moves; failures
 * are sent back to the broker (which re-delivers them on %RETRY%<group>, then dead-letters them), or retried
 * locally after a delay when the send-back fails, so nothing is dropped.
 */
export class ConcurrentConsumeService implements ConsumeService {
  private readonly pool: ElasticPool<ConsumeTask>;
  private readonly running = new Set<ConsumeTask>();
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private readonly sweepTimer: NodeJS.Timeout;
  private readonly timeoutMs: number;
  private readonly maxReconsumeTimes: number;

  constructor(private readonly deps: ConsumeServiceDeps) {
    const { options } = deps;
    this.pool = new ElasticPool(options.consumeThreadMin, options.consumeThreadMax, (task) => this.run(task));
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
    return new ConsumedMessage(record, pq.mq, this.bindingFor(pq, record)?.codec ?? jsonCodec, seq);
  }

  submit(pq: ProcessQueue, messages: ConsumedMessage[]): void {
    if (messages.length === 0) return;
    const retryQueue = isRetryTopic(pq.mq.topic);
    if (!retryQueue) {
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
    this.pool.discard((task) => task.pq === pq);
  }

  /** Aborts the signal of every running call of these queues (stop() gave up waiting for them). */
  abortRunning(pqs: ReadonlySet<ProcessQueue>, reason: Error): number {
    let count = 0;
    for (const task of this.running) {
      if (!pqs.has(task.pq)) continue;
      task.context?.abort(reason);
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

  private submitChunks(pq: ProcessQueue, messages: ConsumedMessage[], binding: HandlerBinding | undefined): void {
    const size = binding?.batch ? this.deps.options.consumeMessageBatchMaxSize : 1;
    if (size === 1) {
      for (let i = 0; i < messages.length; i++) this.pool.submit(this.task(pq, [messages[i]!], binding));
      return;
    }
    for (let i = 0; i < messages.length; i += size) this.pool.submit(this.task(pq, messages.slice(i, i + size), binding));
  }

  private task(pq: ProcessQueue, messages: ConsumedMessage[], binding: HandlerBinding | undefined): ConsumeTask {
    return { pq, messages, binding, startedAt: 0, context: undefined, timedOut: false, settled: false };
  }

  private async run(task: ConsumeTask): Promise<void> {
    const { pq } = task;
    // A released queue's waiting work is not started: the new owner consumes it from the committed offset.
    if (pq.state !== 'active') return;
    pq.inflight++;
    task.startedAt = Date.now();
    const context = new ConsumeContextImpl(this.deps.group, pq.mq);
    task.context = context;
    this.running.add(task);
    let status: unknown;
    let error: unknown;
    let threw = false;
    try {
      status = await this.invoke(task, context);
    } catch (e) {
      threw = true;
      error = e;
    }
    this.running.delete(task);
    if (task.timedOut) return; // the sweep already retried these messages and released the slot
    try {
      await this.complete(task, context, threw ? toError(error) : undefined, status);
    } finally {
      pq.handlerFinished();
    }
  }

  private invoke(task: ConsumeTask, context: ConsumeContextImpl): unknown {
    const { binding } = task;
    if (!binding) throw new Error(`no handler of group ${this.deps.group} subscribes topic ${task.messages[0]!.topic}`);
    const input = binding.batch ? task.messages : task.messages[0];
    const hooks = this.deps.hooks;
    if (hooks.length === 0) return binding.call(input, context);
    const invocation = {
      group: this.deps.group,
      mq: task.pq.mq,
      messages: task.messages,
      context,
      handler: { className: binding.className, method: binding.method },
    };
    let proceed = async (): Promise<unknown> => binding.call(input, context);
    for (let i = hooks.length - 1; i >= 0; i--) {
      const hook = hooks[i]!;
      const next = proceed;
      proceed = () => hook.around(invocation, next);
    }
    return proceed();
  }

  /** processConsumeResult: work out the ack index, send failures back, remove the rest and move the offset. */
  private async complete(task: ConsumeTask, context: ConsumeContextImpl, error: Error | undefined, status: unknown): Promise<void> {
    const { pq, messages } = task;
    const n = messages.length;
    const ok = error === undefined && status !== ConsumeStatus.RECONSUME_LATER && status !== ConsumeStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT;
    const ackIndex = ok ? Math.max(-1, Math.min(context.ackIndex, n - 1)) : -1;
    const { events, group } = this.deps;
    if (error) events.emit('consumer.error', { group, where: 'handler', error, mq: pq.mq });
    let finished: ConsumedMessage[] = messages;
    if (ackIndex < n - 1) {
      const failed = messages.slice(ackIndex + 1);
      finished = messages.slice(0, ackIndex + 1);
      const handedOff = await this.handleFailures(pq, failed, context.delayLevelWhenNextConsume);
      for (const m of handedOff) finished.push(m);
    }
    this.finish(pq, finished);
    if (events.has('consumer.consume')) {
      events.emit('consumer.consume', { group, mq: pq.mq, count: n, ok: ackIndex + 1, failed: n - ackIndex - 1, durationMs: Date.now() - task.startedAt });
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

  private finish(pq: ProcessQueue, finished: ConsumedMessage[]): void {
    if (finished.length === 0 || pq.state === 'dropped') return;
    const seqs = new Array<number>(finished.length);
    for (let i = 0; i < finished.length; i++) seqs[i] = finished[i]!.seq;
    this.deps.budget.release(pq.remove(seqs));
    const offset = pq.committableOffset();
    if (offset >= 0 && offset !== pq.committedOffset) {
      pq.committedOffset = offset;
      this.deps.offsetStore.update(pq.mq, offset, { increaseOnly: true });
    }
  }

  /** consumeTimeout: calls running too long are aborted and their messages retried; their slots are freed. */
  private sweepExpired(): void {
    if (this.running.size === 0) return;
    const now = Date.now();
    for (const task of [...this.running]) {
      if (task.timedOut || now - task.startedAt <= this.timeoutMs) continue;
      task.timedOut = true;
      this.running.delete(task);
      const error = new TimeoutError(`handler call of group ${this.deps.group} ran past consumeTimeout (${this.deps.options.consumeTimeout} min)`);
      const context = task.context!;
      context.abort(error);
      // RocketMQ's cleanExpiredMsg sends an expired message back with delay level 3.
      context.delayLevelWhenNextConsume = 3;
      this.pool.settle(task);
      void this.completeExpired(task, context, error);
    }
  }

  /** Detached on purpose (the sweep must not wait for send-backs); it cannot reject. */
  private async completeExpired(task: ConsumeTask, context: ConsumeContextImpl, error: Error): Promise<void> {
    try {
      await this.complete(task, context, error, undefined);
    } catch (e) {
      this.deps.events.emit('consumer.error', { group: this.deps.group, where: 'consume-timeout', error: toError(e), mq: task.pq.mq });
    } finally {
      task.pq.handlerFinished();
    }
  }
}
