import type { ObservableInput } from 'rxjs';
import type { ClientHost } from '../app/client-host';
import { Heartbeats } from '../app/heartbeats';
import type { Message } from '../model/message';
import type { MessageQueue } from '../model/message-queue';
import type { SubscriptionData } from '../model/subscription';
import { QueueWork } from '../consumer/queue/queue-work';
import { ConsumeProgress } from '../consumer/progress/consume-progress';
import { ConsumeStats, countConsumed } from '../consumer/queue/consume-stats';
import type { ConsumedMessage } from '../model/consumed-message';
import type { GroupContext } from '../consumer/queue/group-context';
import { reportError } from '../events/report-error';
import { every } from '../util/periodic';
import type { ProcessQueue } from '../consumer/queue/process-queue';
import { ProcessQueueTable } from '../consumer/queue/process-queue-table';
import { RebalanceService } from '../consumer/queue/rebalance.service';
import { computeStartOffset } from '../consumer/queue/start-offset';
import type { AllocationStrategy } from '../spi/allocation-strategy';
import type { OffsetStore } from '../spi/offset-store';
import type { TransportRoles } from '../spi/transport.plugin';
import type { ConsumerRegistration } from '../spi/transport.roles';
import type { PollBuffer } from './poll-buffer';
import type { PullConsumerOptions, ResolvedPullConsumerOptions } from './pull-consumer-options';
import { strategyAndStore } from './pull-engine-setup';

/** What the engine is built from: the connected client and the pull consumer's own state. */
export interface PullEngineParts {
  readonly host: ClientHost;
  readonly ctx: GroupContext;
  readonly options: PullConsumerOptions;
  readonly resolved: ResolvedPullConsumerOptions;
  readonly transport: TransportRoles;
  /** The consumer's subscriptions by topic, read by pulls, heartbeats and the rebalance. */
  readonly subscriptions: ReadonlyMap<string, SubscriptionData>;
  readonly buffer: PollBuffer;
  /** The client's signal, not the group's: heartbeats go on while the group releases its queues and leaves. */
  readonly signal: AbortSignal;
  /** Undefined when the queue may pull; else resolves when it may again (the application paused it). */
  whenRunning(pq: ProcessQueue): ObservableInput<unknown> | undefined;
}

/**
 * The push consumers' engine under a pull consumer: the ProcessQueueTable's pull loops, their progress and offset
 * store, heartbeats, auto-commit, and the rebalance once a topic is subscribed (assigned queues never move, so a
 * consumer that only assigns runs none). It owns the order the group leaves in.
 */
export class PullEngine {
  readonly progress: ConsumeProgress;
  private readonly work: QueueWork;
  readonly queues: ProcessQueueTable;
  private readonly heartbeats: Heartbeats;
  private rebalance: RebalanceService | undefined;
  private committing: Promise<void> = Promise.resolve();

  /**
   * Opens the engine once the transport is connected and the plugins registered (they may provide strategies and
   * offset stores), with the offset store loaded. Nothing pulls until queues are applied to the table.
   */
  static async open(parts: PullEngineParts): Promise<PullEngine> {
    const { strategy, store } = strategyAndStore(parts.host, parts.options, parts.resolved);
    await store.load();
    const engine = new PullEngine(parts, strategy, store);
    engine.run();
    return engine;
  }

  private constructor(
    private readonly parts: PullEngineParts,
    readonly strategy: AllocationStrategy,
    readonly store: OffsetStore,
  ) {
    const { ctx, resolved, transport } = parts;
    // Java's lite pull consumer never piggy-backs commits on pulls: commits are the application's.
    this.progress = new ConsumeProgress(ctx, store, false, resolved.autoCommit ? 'auto' : 'manual');
    // No handler here: the buffer wraps pulled records itself (with the consumer's codec), so this only finishes.
    this.work = new QueueWork(ctx.budget, this.progress, () => parts.buffer.codec, ctx.namespace);
    this.queues = new ProcessQueueTable(
      ctx,
      {
        subscriptions: parts.subscriptions,
        progress: this.progress,
        work: this.work,
        consume: parts.buffer,
        puller: transport.puller,
        locks: undefined,
        startOffset: (mq) =>
          computeStartOffset(
            mq,
            ctx.options,
            this.progress,
            transport.offsets,
            this.progress.remembered(mq),
            this.rebalance?.lateSince(mq),
          ),
      },
      {
        whenRunning: (pq) => parts.whenRunning(pq),
        requestRebalance: () => this.rebalance?.request(),
        onAssignmentChanged: () => this.heartbeats.now(),
      },
    );
    this.heartbeats = new Heartbeats(
      transport.membership,
      () => [this.registration()],
      (error) => reportError(ctx, 'heartbeat', error),
      parts.signal,
    );
  }

  /** A subscription was added: the broker hears of it now, and the rebalance allocates its queues. */
  subscribed(): void {
    this.heartbeats.now();
    this.rebalance ??= this.startRebalance();
    this.rebalance.request();
  }

  unsubscribed(): void {
    this.heartbeats.now();
    this.rebalance?.request();
  }

  /** Applies an assignment: each topic's queues become exactly the given ones. */
  async assign(byTopic: ReadonlyArray<readonly [topic: string, queues: readonly MessageQueue[]]>): Promise<void> {
    this.heartbeats.now();
    await Promise.all(byTopic.map(([topic, queues]) => this.queues.applyAllocation(topic, queues)));
  }

  /** The subscribed topics whose last lookup found no route (none while only assigning). */
  unroutedTopics(): string[] {
    return this.rebalance?.unroutedTopics() ?? [];
  }

  /** Taken messages leave their queues: flow control frees them, and progress counts them consumed. */
  consumed(taken: ReadonlyMap<ProcessQueue, ConsumedMessage[]>): Message[] {
    const { stats } = this.parts.ctx;
    const out: Message[] = [];
    for (const [pq, messages] of taken) {
      this.progress.touch(pq);
      this.work.finish(pq, messages);
      countConsumed(stats, pq, messages.length, 0, -1, Date.now());
      for (const m of messages) out.push(m);
    }
    return out;
  }

  /**
   * Commits the progress of every owned queue the application polled or sought, one commit at a time; rejects with
   * the offset store's error.
   */
  commit(): Promise<void> {
    const run = this.committing.then(() => this.progress.commit(this.queues.active()));
    this.committing = run.catch(() => undefined);
    return run;
  }

  /**
   * Leaves the group once its pulls stopped (the group signal aborted): a running rebalance pass and commit finish
   * first, so the released queues store their last committed offsets.
   */
  async leave(): Promise<void> {
    const { ctx, transport } = this.parts;
    await this.rebalance?.idle();
    await this.committing;
    await this.queues.releaseAll(Date.now());
    try {
      await transport.membership.unregister(ctx.group);
    } catch (error) {
      reportError(ctx, 'unregister', error);
    }
    await this.store.close?.();
  }

  /** Resolves once the heartbeats stopped (after the client signal aborted). */
  stopped(): Promise<void> {
    return this.heartbeats.stopped();
  }

  private run(): void {
    const { ctx, resolved, host } = this.parts;
    this.heartbeats.start(host.profile.heartbeatIntervalMs);
    if (resolved.autoCommit)
      void every(
        resolved.autoCommitIntervalMs,
        () => this.queues.persistOwned(),
        ctx.signal,
        (error) => reportError(ctx, 'auto-commit', error),
      );
    void every(
      ConsumeStats.SAMPLE_MS,
      () => ctx.stats.sample(),
      ctx.signal,
      (error) => reportError(ctx, 'stats', error),
    );
  }

  private startRebalance(): RebalanceService {
    const { ctx, subscriptions, transport } = this.parts;
    const { queues } = this;
    const rebalance = new RebalanceService(
      ctx,
      {
        topics: () => [...subscriptions.keys()],
        applyAllocation: (t, allocated, mqAll) => queues.applyAllocation(t, allocated, mqAll),
        beforeAllocation: (t, mqAll, routeChanged) => queues.beforeAllocation(t, mqAll, routeChanged),
        dropUnsubscribed: (topics) => queues.dropUnsubscribed(topics),
        queuesChanged: () => undefined,
      },
      { strategy: this.strategy, routes: transport.routes, membership: transport.membership },
    );
    rebalance.start();
    return rebalance;
  }

  private registration(): ConsumerRegistration {
    const o = this.parts.resolved.group;
    return {
      group: o.group,
      messageModel: o.messageModel,
      consumeFromWhere: o.consumeFromWhere,
      subscriptions: [...this.parts.subscriptions.values()],
      consumeType: 'CONSUME_ACTIVELY',
    };
  }
}
