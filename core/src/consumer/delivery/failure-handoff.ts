import type { RetryChannel } from '../../spi/transport.roles';
import type { ConsumedMessage } from '../../model/consumed-message';
import type { GroupContext } from '../queue/group-context';
import { reportError } from '../../events/report-error';
import type { ProcessQueue } from '../queue/process-queue';

/**
 * Where failed messages go, so none is silently dropped: in CLUSTERING back to the broker (CONSUMER_SEND_MSG_BACK,
 * which re-delivers on `%RETRY%<group>` and dead-letters past maxReconsumeTimes), or, when that send fails, consumed
 * again here after localRetryDelayMs (RocketMQ's fallback). In BROADCASTING there is no retry: RocketMQ logs and
 * skips them, and so does this (the log is `consumer.error`).
 */
export class FailureHandoff {
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  /** CONCURRENTLY's limit: -1 means RocketMQ's 16. */
  private readonly maxReconsumeTimes: number;

  constructor(
    private readonly ctx: GroupContext,
    private readonly retry: RetryChannel | undefined,
    /** Schedules messages again (a local retry). */
    private readonly resubmit: (pq: ProcessQueue, messages: ConsumedMessage[]) => void,
  ) {
    this.maxReconsumeTimes = ctx.options.maxReconsumeTimes === -1 ? 16 : ctx.options.maxReconsumeTimes;
  }

  /** Returns the failed messages that are done with here (handed to the broker, or skipped in BROADCASTING). */
  async handOff(pq: ProcessQueue, failed: ConsumedMessage[], delayLevel: number): Promise<ConsumedMessage[]> {
    const { ctx } = this;
    // A queue being released keeps its failures unfinished: the next owner consumes them from the offset.
    if (!pq.active) return [];
    if (ctx.options.messageModel === 'BROADCASTING') {
      for (const m of failed)
        reportError(
          ctx,
          'broadcast-failure-skipped',
          new Error(`message ${m.msgId} failed and is skipped (BROADCASTING has no retry)`),
          pq.mq,
        );
      return failed;
    }
    const handedOff: ConsumedMessage[] = [];
    const local: ConsumedMessage[] = [];
    await Promise.all(
      failed.map(async (m) => {
        if (await this.sendBack(m, delayLevel, this.maxReconsumeTimes, 'send-back')) handedOff.push(m);
        else local.push(m);
      }),
    );
    if (local.length > 0) this.retryLocally(pq, local);
    return handedOff;
  }

  /** One CONSUMER_SEND_MSG_BACK; false when there is no retry channel or the broker did not take it. */
  async sendBack(m: ConsumedMessage, delayLevel: number, maxReconsumeTimes: number, where: string): Promise<boolean> {
    const { retry, ctx } = this;
    if (!retry) return false;
    try {
      await retry.sendBack({
        group: ctx.group,
        message: m.record,
        delayLevel,
        maxReconsumeTimes,
        timeoutMs: ctx.profile.requestTimeoutMs,
      });
    } catch (error) {
      reportError(ctx, where, error, m.messageQueue);
      return false;
    }
    if (ctx.events.has('consumer.retry')) {
      // The broker decides by the reconsumeTimes it stored (it looks the message up by offset), not our local count.
      const deadLetter = delayLevel < 0 || m.record.reconsumeTimes >= maxReconsumeTimes;
      ctx.events.emit('consumer.retry', {
        group: ctx.group,
        msgId: m.msgId,
        topic: m.topic,
        reconsumeTimes: m.reconsumeTimes,
        delayLevel,
        local: false,
        deadLetter,
      });
    }
    return true;
  }

  close(): void {
    for (const timer of this.retryTimers) clearTimeout(timer);
    this.retryTimers.clear();
  }

  /** RocketMQ's fallback when send-back fails: consume the messages again here after a delay. */
  private retryLocally(pq: ProcessQueue, messages: ConsumedMessage[]): void {
    const { ctx } = this;
    for (const m of messages) {
      m.localReconsumeTimes++;
      if (ctx.events.has('consumer.retry')) {
        ctx.events.emit('consumer.retry', {
          group: ctx.group,
          msgId: m.msgId,
          topic: m.topic,
          reconsumeTimes: m.reconsumeTimes,
          delayLevel: 0,
          local: true,
          deadLetter: false,
        });
      }
    }
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      if (pq.active)
        this.resubmit(
          pq,
          messages.filter((m) => pq.contains(m.seq)),
        );
    }, ctx.profile.localRetryDelayMs);
    this.retryTimers.add(timer);
  }
}
