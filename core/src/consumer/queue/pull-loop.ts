import { BrokerError } from '../../errors/broker.error';
import type { MessageRecord } from '../../model/message';
import { PullStatus, type PullResult } from '../../model/pull-result';
import { tagMatches } from '../../model/subscription';
import type { ResolvedGroupOptions } from '../../options/consumer-options';
import type { MessagePuller } from '../../spi/transport.roles';
import { untilAborted } from '../../util/abort';
import { sleep } from '../../util/deferred';
import type { ConsumeProgress } from '../progress/consume-progress';
import type { ConsumeService } from './consume-service';
import type { GroupContext } from './group-context';
import { reportError } from '../../events/report-error';
import type { ProcessQueue } from './process-queue';

const MIB = 1024 * 1024;
/** What a step returns when the loop ends. */
const STOP = -1;

/** Per-queue limits; pullThresholdFor*Topic makes them depend on how many queues the consumer owns. */
export interface PullLimits {
  readonly count: number;
  readonly bytes: number;
}

/** What a pull loop asks of the rest of its group. */
export interface PullLoopHost {
  limits(): PullLimits;
  /** Undefined when pulling may go on; else resolves when it may resume (user pause, store backpressure). */
  whenRunning(): Promise<void> | undefined;
  /** Under broker locks: pull only while the queue's lock is valid (RocketMQ's orderly check 7c). */
  readonly lockValid?: (pq: ProcessQueue) => boolean;
  /** RocketMQ's OFFSET_ILLEGAL repair: store the broker's offset, drop the queue, rebalance. */
  offsetIllegal(pq: ProcessQueue, nextOffset: number): Promise<void>;
}

/**
 * The long-poll loop of one owned queue (PullMessageService + pullMessage). One owner, one outstanding pull, and
 * one way to stop: the queue's signal, which also ends the held pull. Flow control is a wait, not a 50 ms poll:
 * a loop over its limits sleeps until its queue frees capacity (or the app budget frees bytes). Each pull asks
 * for no more than the remaining room, so a limit is overshot by at most one message (the broker always returns
 * at least one).
 */
export class PullLoop {
  /** The last answer had no messages: the next pull will probably be held as a long poll. */
  private idle = true;
  private typicalMessageBytes = 1024;

  constructor(
    private readonly ctx: GroupContext,
    private readonly pq: ProcessQueue,
    private readonly puller: MessagePuller,
    private readonly consume: ConsumeService,
    private readonly progress: ConsumeProgress,
    private readonly host: PullLoopHost,
  ) {}

  /** Pulls until the queue's signal aborts or the queue is dropped; resolves then. Never rejects. */
  async run(): Promise<void> {
    const { signal } = this.pq;
    for (;;) {
      const delay = await this.pullOnce();
      if (delay === STOP || !this.pq.active) return;
      if (delay > 0) await sleep(delay, signal);
    }
  }

  /** One iteration; resolves with the delay before the next one, or STOP. Never rejects. */
  private async pullOnce(): Promise<number> {
    const { pq, ctx, host } = this;
    try {
      if (!pq.active) return STOP;
      const paused = host.whenRunning();
      if (paused) {
        await untilAborted(paused, pq.signal);
        return 0;
      }
      if (host.lockValid && !host.lockValid(pq)) return ctx.profile.pullErrorDelayMs;
      const { options } = ctx;
      const limits = host.limits();
      const maxSpan =
        options.consumeMode === 'CONCURRENTLY' ? options.consumeConcurrentlyMaxSpan : Number.MAX_SAFE_INTEGER;
      const countRoom = limits.count - pq.msgCount;
      const bytesRoom = limits.bytes - pq.msgBytes;
      const spanRoom = maxSpan - pq.maxSpan;
      if (countRoom <= 0 || bytesRoom <= 0 || spanRoom <= 0) {
        // Java re-checks every 50 ms; here the loop sleeps until the queue is back under a low watermark
        // (room for a full batch), so the next pull is a useful one.
        const batch = Math.min(options.pullBatchSize, limits.count);
        await pq.waitForCapacity({
          count: limits.count - batch,
          bytes: limits.bytes - Math.min(options.pullBatchSizeInBytes, limits.bytes),
          span: maxSpan - Math.min(options.pullBatchSize, maxSpan),
        });
        return 0;
      }
      // Waiting for a sixteenth of the app budget (or a full pull, if smaller) keeps pulls useful without letting
      // a queue wait for room that other queues' pulls keep taking.
      const watermark = Math.min(options.pullBatchSizeInBytes, Math.max(1, Math.floor(ctx.budget.limit / 16)));
      if (ctx.budget.room() < watermark) {
        await untilAborted(ctx.budget.waitForRoom(watermark), pq.signal);
        return 0;
      }
      // An idle queue's pull is likely to be held by the broker for the whole long poll: it reserves about one
      // message, not a full batch, so idle queues do not sit on the budget that busy ones need. (One function with
      // the checks above: an async call level less per pull.)
      const wantedBytes = Math.min(options.pullBatchSizeInBytes, bytesRoom);
      const reserved = ctx.budget.reserve(this.idle ? Math.min(wantedBytes, this.typicalMessageBytes) : wantedBytes);
      let result: PullResult;
      const sentAt = Date.now();
      try {
        result = await this.puller.pull(
          {
            group: ctx.group,
            mq: pq.mq,
            offset: pq.nextOffset,
            maxMsgs: Math.min(options.pullBatchSize, countRoom, spanRoom),
            maxBytes: reserved,
            subscription: pq.subscription,
            suspendMs: ctx.profile.pullSuspendMs,
            timeoutMs: ctx.profile.pullTimeoutMs,
            commitOffset: this.progress.pullCommit(pq),
          },
          pq.signal,
        );
      } catch (error) {
        ctx.budget.settle(reserved, 0);
        if (!pq.active) return STOP; // aborted by a release: expected
        reportError(ctx, 'pull', error, pq.mq);
        return error instanceof BrokerError && error.kind === 'flow-control'
          ? ctx.profile.pullFlowControlDelayMs
          : ctx.profile.pullErrorDelayMs;
      }
      if (!pq.active) {
        ctx.budget.settle(reserved, 0);
        return STOP;
      }
      return await this.handle(result, reserved, sentAt);
    } catch (error) {
      // A bug must not silently end a queue's loop (a "stuck consumer"): report it and try again later.
      reportError(ctx, 'pull-loop', error, pq.mq);
      return pq.active ? ctx.profile.pullErrorDelayMs : STOP;
    }
  }

  private async handle(result: PullResult, reserved: number, sentAt: number): Promise<number> {
    const { pq, ctx } = this;
    const now = Date.now();
    pq.answered(result.maxOffset, now);
    this.idle = result.status !== PullStatus.FOUND || result.messages.length === 0;
    if (!this.idle) this.typicalMessageBytes = Math.max(1, result.messages[result.messages.length - 1]!.body.length);
    let found = 0;
    switch (result.status) {
      case PullStatus.FOUND: {
        // The broker returns at least one message whatever maxBytes said, so a pull that reserved less than a
        // message (an idle one, held while the budget filled up) can overshoot it. Several held pulls answering
        // at once would each overshoot: an answer that finds the budget already full without it is dropped, and
        // the same offset is pulled again once there is room. So the app budget is overshot by one message at most.
        if (ctx.budget.inUse - reserved >= ctx.budget.limit) {
          ctx.budget.settle(reserved, 0);
          return 0;
        }
        pq.pullFrom(result.nextBeginOffset);
        const accepted = this.consume.submit(pq, this.filter(result.messages));
        ctx.budget.settle(reserved, accepted.bytes);
        found = accepted.count;
        if (found === 0) this.progress.skipTo(pq, pq.nextOffset);
        const counters = pq.counters(ctx.stats);
        counters.pulls++;
        counters.pullRtTotal += now - sentAt;
        counters.pulledMessages += found;
        break;
      }
      case PullStatus.NO_NEW_MSG:
      case PullStatus.NO_MATCHED_MSG:
        ctx.budget.settle(reserved, 0);
        pq.pullFrom(result.nextBeginOffset);
        this.progress.skipTo(pq, pq.nextOffset);
        break;
      case PullStatus.OFFSET_ILLEGAL:
        ctx.budget.settle(reserved, 0);
        this.emitPull(result, 0, now - sentAt);
        await this.host.offsetIllegal(pq, result.nextBeginOffset);
        return STOP;
    }
    this.emitPull(result, found, now - sentAt);
    return result.status === PullStatus.FOUND && found > 0 ? ctx.options.pullInterval : 0;
  }

  /** The client-side exact tag check after the broker's hash filter. */
  private filter(records: readonly MessageRecord[]): readonly MessageRecord[] {
    const sub = this.pq.subscription;
    if (sub.tags.size === 0) return records;
    return records.filter((r) => tagMatches(sub, r.properties.TAGS));
  }

  private emitPull(result: PullResult, found: number, durationMs: number): void {
    const { ctx, pq } = this;
    if (!ctx.events.has('consumer.pull')) return;
    ctx.events.emit('consumer.pull', {
      group: ctx.group,
      mq: pq.mq,
      status: result.status,
      found,
      nextOffset: pq.nextOffset,
      maxOffset: result.maxOffset,
      durationMs,
    });
  }
}

export function limitsFromOptions(options: ResolvedGroupOptions, ownedQueues: number): PullLimits {
  const n = Math.max(1, ownedQueues);
  const count =
    options.pullThresholdForTopic === -1
      ? options.pullThresholdForQueue
      : Math.max(1, Math.floor(options.pullThresholdForTopic / n));
  const mib =
    options.pullThresholdSizeForTopic === -1
      ? options.pullThresholdSizeForQueue
      : Math.max(1, Math.floor(options.pullThresholdSizeForTopic / n));
  return { count, bytes: mib * MIB };
}
