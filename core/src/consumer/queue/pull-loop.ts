import { type ObservableInput, firstValueFrom, from, merge, timer } from 'rxjs';
import { BrokerError } from '../../errors/broker.error';
import type { MessageRecord } from '../../model/message';
import { PullStatus, type PullResult } from '../../model/pull-result';
import { tagMatches } from '../../model/subscription';
import type { ResolvedGroupOptions } from '../../options/consumer-options';
import type { MessagePuller } from '../../spi/transport.roles';
import { untilAborted } from '../../util/abort';
import { aborted } from '../../util/periodic';
import type { ConsumeProgress } from '../progress/consume-progress';
import type { ConsumeService } from './consume-service';
import type { GroupContext } from './group-context';
import { reportError } from '../../events/report-error';
import type { ProcessQueue } from './process-queue';

const MIB = 1024 * 1024;
/** What a step returns when the loop ends. */
const STOP = -1;
/** A decision: pull now. */
const PULL = 0;

/** What a queue's loop does next: STOP, PULL, or wait for this trigger and decide again. */
type Decision = typeof STOP | typeof PULL | ObservableInput<unknown>;

/** Per-queue limits; pullThresholdFor*Topic makes them depend on how many queues the consumer owns. */
export interface PullLimits {
  readonly count: number;
  readonly bytes: number;
}

/** What a pull loop asks of the rest of its group. */
export interface PullLoopHost {
  limits(): PullLimits;
  /** Undefined when pulling may go on; else a trigger that fires when it may resume (user pause, store backpressure). */
  whenRunning(): ObservableInput<unknown> | undefined;
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
  /** What `decide` found free for the next pull (one object per loop: nothing allocated per pull). */
  private readonly room = { count: 0, bytes: 0, span: 0 };

  constructor(
    private readonly ctx: GroupContext,
    private readonly pq: ProcessQueue,
    private readonly puller: MessagePuller,
    private readonly consume: ConsumeService,
    private readonly progress: ConsumeProgress,
    private readonly host: PullLoopHost,
  ) {}

  /**
   * Pulls until the queue's signal aborts or the queue is dropped; resolves then. Never rejects. Each turn is a
   * decision at pull-result granularity (`decide`): pull now, or wait for a trigger. The triggers from outside the
   * queue (a pause's end, a lock, a delay) are streams composed with the queue's end; the pull and the waits for room
   * stay plain promises, which the pipeline bench measured (docs/architecture.md#why-rxjs-is-where-it-is).
   */
  async run(): Promise<void> {
    const end$ = aborted(this.pq.signal);
    for (;;) {
      let next: Decision;
      try {
        next = this.decide();
        if (next === PULL) {
          const delay = await this.pull();
          if (delay === STOP || !this.pq.active) return;
          next = delay > 0 ? timer(delay) : PULL;
        }
      } catch (error) {
        // A bug must not silently end a queue's loop (a "stuck consumer"): report it and try again later.
        reportError(this.ctx, 'pull-loop', error, this.pq.mq);
        next = this.pq.active ? timer(this.ctx.profile.pullErrorDelayMs) : STOP;
      }
      if (next === STOP) return;
      // The queue's own waits (room in it, room in the budget) end with the queue and are awaited as they are:
      // under a backlog one comes after nearly every pull. As streams they cost the pipeline bench up to 7 % (one
      // message per call: 1.078 of the stream version's steady rate; batches 1.00), past the 5 % the rule allows.
      if (next instanceof Promise) await next;
      else if (next !== PULL) await firstValueFrom(merge(from(next), end$), { defaultValue: undefined });
    }
  }

  /**
   * What this queue does next: STOP once released, PULL when nothing holds it, else the trigger to wait for (the
   * loop decides again when it fires). Flow control is a wait, not Java's 50 ms re-check: the queue waits until it
   * is back under a low watermark (room for a full batch), so the next pull is a useful one.
   */
  private decide(): Decision {
    const { pq, ctx, host } = this;
    if (!pq.active) return STOP;
    const paused = host.whenRunning();
    if (paused) return paused instanceof Promise ? untilAborted(paused, pq.signal) : paused;
    if (host.lockValid && !host.lockValid(pq)) return timer(ctx.profile.pullErrorDelayMs);
    const { options } = ctx;
    const limits = host.limits();
    const maxSpan =
      options.consumeMode === 'CONCURRENTLY' ? options.consumeConcurrentlyMaxSpan : Number.MAX_SAFE_INTEGER;
    this.room.count = limits.count - pq.msgCount;
    this.room.bytes = limits.bytes - pq.msgBytes;
    this.room.span = maxSpan - pq.maxSpan;
    if (this.room.count <= 0 || this.room.bytes <= 0 || this.room.span <= 0) {
      const batch = Math.min(options.pullBatchSize, limits.count);
      return pq.waitForCapacity({
        count: limits.count - batch,
        bytes: limits.bytes - Math.min(options.pullBatchSizeInBytes, limits.bytes),
        span: maxSpan - Math.min(options.pullBatchSize, maxSpan),
      });
    }
    // Waiting for a sixteenth of the app budget (or a full pull, if smaller) keeps pulls useful without letting
    // a queue wait for room that other queues' pulls keep taking.
    const watermark = Math.min(options.pullBatchSizeInBytes, Math.max(1, Math.floor(ctx.budget.limit / 16)));
    if (ctx.budget.room() < watermark) return untilAborted(ctx.budget.waitForRoom(watermark), pq.signal);
    return PULL;
  }

  /** One pull within the room `decide` found; resolves with the delay before the next turn, or STOP. */
  private async pull(): Promise<number> {
    const { pq, ctx } = this;
    const { options } = ctx;
    const { count: countRoom, bytes: bytesRoom, span: spanRoom } = this.room;
    // An idle queue's pull is likely to be held by the broker for the whole long poll: it reserves about one
    // message, not a full batch, so idle queues do not sit on the budget that busy ones need.
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
