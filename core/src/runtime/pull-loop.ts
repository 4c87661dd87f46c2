import type { Subscription } from 'rxjs';
import { BrokerError } from '../errors/broker.error';
import type { EventBus } from '../events/event-bus';
import type { MessageRecord } from '../model/message';
import { PullStatus, type PullResult } from '../model/pull-result';
import { tagMatches } from '../model/subscription';
import type { ResolvedGroupOptions } from '../options/consumer-options';
import type { Profile } from '../options/profile';
import type { MessagePuller } from '../spi/transport.roles';
import { toError } from '../util/deferred';
import type { ByteBudget } from './byte-budget';
import type { ConsumeService } from './consume-service';
import type { ConsumedMessage } from './consumed-message';
import { STOP, repeatSteps } from './operators/repeat-steps';
import { untilAborted } from './operators/until-aborted';
import type { ProcessQueue } from './process-queue';

const MIB = 1024 * 1024;

/** Per-queue limits; pullThresholdFor*Topic makes them depend on how many queues the consumer owns. */
export interface PullLimits {
  readonly count: number;
  readonly bytes: number;
}

export interface PullLoopDeps {
  readonly group: string;
  readonly options: ResolvedGroupOptions;
  readonly profile: Profile;
  readonly puller: MessagePuller;
  readonly consume: ConsumeService;
  readonly budget: ByteBudget;
  readonly events: EventBus;
  limits(): PullLimits;
  /** Resolves at once when not paused, else when resumed. */
  whenRunning(): Promise<void> | undefined;
  /** Under broker locks: pull only while the queue's lock is valid (RocketMQ's orderly check 7c). */
  readonly lockValid?: (pq: ProcessQueue) => boolean;
  /** RocketMQ's OFFSET_ILLEGAL repair: store the broker's offset, drop the queue, rebalance. */
  offsetIllegal(pq: ProcessQueue, nextOffset: number): Promise<void>;
}

/**
 * The long-poll loop of one owned queue (PullMessageService + pullMessage). One owner, one outstanding pull.
 * Flow control is a wait, not a 50 ms poll: a loop over its limits sleeps until its queue frees capacity (or
 * the app budget frees bytes). Each pull asks for no more than the remaining room, so a limit is overshot by at
 * most one message (the broker always returns at least one).
 */
export class PullLoop {
  /** The last answer had no messages: the next pull will probably be held as a long poll. */
  private idle = true;
  private typicalMessageBytes = 1024;

  constructor(
    private readonly pq: ProcessQueue,
    private readonly deps: PullLoopDeps,
  ) {}

  start(): Subscription {
    return repeatSteps(() => this.pullOnce()).subscribe();
  }

  /** One iteration; resolves with the delay before the next one, or STOP. Never rejects. */
  private async pullOnce(): Promise<number> {
    const { pq, deps } = this;
    try {
      if (pq.state !== 'active') return STOP;
      const paused = deps.whenRunning();
      if (paused) {
        await untilAborted(paused, pq.pullAbort.signal);
        return 0;
      }
      if (deps.lockValid && !deps.lockValid(pq)) return deps.profile.pullErrorDelayMs;
      const { options } = deps;
      const limits = deps.limits();
      const maxSpan = options.consumeMode === 'CONCURRENTLY' ? options.consumeConcurrentlyMaxSpan : Number.MAX_SAFE_INTEGER;
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
      const watermark = Math.min(options.pullBatchSizeInBytes, Math.max(1, Math.floor(deps.budget.limit / 16)));
      if (deps.budget.room() < watermark) {
        await untilAborted(deps.budget.waitForRoom(watermark), pq.pullAbort.signal);
        return 0;
      }
      const maxMsgs = Math.min(options.pullBatchSize, countRoom, spanRoom);
      // An idle queue's pull is likely to be held by the broker for the whole long poll: it reserves about one
      // message, not a full batch, so idle queues do not sit on the budget that busy ones need.
      const wanted = Math.min(options.pullBatchSizeInBytes, bytesRoom);
      const reserved = deps.budget.reserve(this.idle ? Math.min(wanted, this.typicalMessageBytes) : wanted);
      let result: PullResult;
      try {
        result = await deps.puller.pull(
          {
            group: deps.group,
            mq: pq.mq,
            offset: pq.nextOffset,
            maxMsgs,
            maxBytes: reserved,
            subscription: pq.subscription,
            suspendMs: deps.profile.pullSuspendMs,
            timeoutMs: deps.profile.pullTimeoutMs,
            // RocketMQ piggy-backs the commit on pulls to the master in CLUSTERING, when it is > 0.
            commitOffset: options.messageModel === 'CLUSTERING' && pq.committedOffset > 0 ? pq.committedOffset : undefined,
          },
          pq.pullAbort.signal,
        );
      } catch (error) {
        deps.budget.settle(reserved, 0);
        if (pq.state !== 'active') return STOP; // aborted by a release: expected
        deps.events.emit('consumer.error', { group: deps.group, where: 'pull', error: toError(error), mq: pq.mq });
        return error instanceof BrokerError && error.responseCode === 215 ? deps.profile.pullFlowControlDelayMs : deps.profile.pullErrorDelayMs;
      }
      if (pq.state !== 'active') {
        deps.budget.settle(reserved, 0);
        return STOP;
      }
      return await this.handle(result, reserved);
    } catch (error) {
      // A bug must not silently end a queue's loop (a "stuck consumer"): report it and try again later.
      deps.events.emit('consumer.error', { group: deps.group, where: 'pull-loop', error: toError(error), mq: pq.mq });
      return pq.state === 'active' ? deps.profile.pullErrorDelayMs : STOP;
    }
  }

  private async handle(result: PullResult, reserved: number): Promise<number> {
    const { pq, deps } = this;
    pq.brokerMaxOffset = result.maxOffset;
    this.idle = result.status !== PullStatus.FOUND || result.messages.length === 0;
    if (!this.idle) this.typicalMessageBytes = Math.max(1, result.messages[result.messages.length - 1]!.body.length);
    let found = 0;
    switch (result.status) {
      case PullStatus.FOUND: {
        pq.nextOffset = result.nextBeginOffset;
        const records = this.filter(result.messages);
        const accepted: ConsumedMessage[] = [];
        const bytes = pq.put(records, (record, seq) => accepted.push(deps.consume.wrap(pq, record, seq)));
        deps.budget.settle(reserved, bytes);
        found = accepted.length;
        if (found > 0) deps.consume.submit(pq, accepted);
        else this.correctTagsOffset();
        break;
      }
      case PullStatus.NO_NEW_MSG:
      case PullStatus.NO_MATCHED_MSG:
        deps.budget.settle(reserved, 0);
        pq.nextOffset = result.nextBeginOffset;
        this.correctTagsOffset();
        break;
      case PullStatus.OFFSET_ILLEGAL:
        deps.budget.settle(reserved, 0);
        this.emitPull(result, 0);
        await deps.offsetIllegal(pq, result.nextBeginOffset);
        return STOP;
    }
    this.emitPull(result, found);
    return result.status === PullStatus.FOUND && found > 0 ? deps.options.pullInterval : 0;
  }

  /** The client-side exact tag check after the broker's hash filter. */
  private filter(records: readonly MessageRecord[]): readonly MessageRecord[] {
    const sub = this.pq.subscription;
    if (sub.tags.size === 0) return records;
    return records.filter((r) => tagMatches(sub, r.properties['TAGS']));
  }

  /** RocketMQ's correctTagsOffset: with nothing cached, the offset moves past filtered or empty ranges. */
  private correctTagsOffset(): void {
    const { pq } = this;
    if (pq.msgCount === 0 && pq.nextOffset > pq.committedOffset) pq.committedOffset = pq.nextOffset;
  }

  private emitPull(result: PullResult, found: number): void {
    const { deps, pq } = this;
    if (!deps.events.has('consumer.pull')) return;
    deps.events.emit('consumer.pull', { group: deps.group, mq: pq.mq, status: result.status, found, nextOffset: pq.nextOffset, maxOffset: result.maxOffset });
  }
}

export function limitsFromOptions(options: ResolvedGroupOptions, ownedQueues: number): PullLimits {
  const n = Math.max(1, ownedQueues);
  const count = options.pullThresholdForTopic === -1 ? options.pullThresholdForQueue : Math.max(1, Math.floor(options.pullThresholdForTopic / n));
  const mib = options.pullThresholdSizeForTopic === -1 ? options.pullThresholdSizeForQueue : Math.max(1, Math.floor(options.pullThresholdSizeForTopic / n));
  return { count, bytes: mib * MIB };
}
