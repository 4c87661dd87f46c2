import { jsonCodec } from '../definition/json.codec';
import type { MessageRecord } from '../model/message';
import type { MessageQueue } from '../model/message-queue';
import type { SubscriptionData } from '../model/subscription';
import type { AllocationStrategy } from '../spi/allocation-strategy';
import type { ConsumeHook } from '../spi/consume-hook';
import type { TransportRoles } from '../spi/transport.plugin';
import { ConcurrentConsumeService } from './delivery/concurrent-consume.service';
import type { HandlerBinding } from './delivery/handler-binding';
import { HandlerInvoker } from './delivery/handler-invoker';
import { OrderlyConsumeService } from './delivery/orderly-consume.service';
import { ReplySender } from './delivery/reply-sender';
import type { ConsumeProgress } from './progress/consume-progress';
import type { DispatchingConsumeService } from './queue/consume-service';
import type { GroupContext } from './queue/group-context';
import type { ProcessQueue } from './queue/process-queue';
import { ProcessQueueTable, type QueueTableHost } from './queue/process-queue-table';
import type { QueueLockManager } from './queue/queue-lock-manager';
import { QueueWork } from './queue/queue-work';
import { RebalanceService } from './queue/rebalance.service';
import { computeStartOffset } from './queue/start-offset';

/** What a started group is made of, wired to each other (see ConsumerRuntime for their lifecycle). */
export interface WiredGroup {
  readonly invoker: HandlerInvoker;
  readonly consume: DispatchingConsumeService;
  readonly queues: ProcessQueueTable;
  readonly rebalance: RebalanceService;
}

/** What the wiring takes: the group's context and the parts ConsumerRuntime made before start. */
export interface GroupWiringParts {
  readonly ctx: GroupContext;
  readonly transport: TransportRoles;
  readonly hooks: readonly ConsumeHook[];
  /** Handlers by (original) topic. */
  readonly handlers: ReadonlyMap<string, HandlerBinding>;
  /** Subscriptions by topic, the retry topic included. */
  readonly subscriptions: ReadonlyMap<string, SubscriptionData>;
  readonly progress: ConsumeProgress;
  readonly strategy: AllocationStrategy;
  readonly lockManager: QueueLockManager | undefined;
  /** Called after a pass changed a topic's assignment (the messageQueueChanged hook). */
  queuesChanged(topic: string, mqAll: readonly MessageQueue[], allocated: readonly MessageQueue[]): void;
}

/**
 * The delivery path of one group, wired once at start, rooms from the bottom up: the invoker and the queue's
 * intake and finish, the consume service of the group's mode, the process-queue table and its pull loops, and the
 * rebalance that drives the table.
 */
export function wireGroup(parts: GroupWiringParts, host: QueueTableHost): WiredGroup {
  const { ctx, transport, progress, lockManager, subscriptions } = parts;
  const replies =
    transport.sender?.sendReply && [...parts.handlers.values()].some((b) => b.reply)
      ? new ReplySender(ctx, (r) => transport.sender!.sendReply!(r))
      : undefined;
  const invoker = new HandlerInvoker(ctx, parts.handlers, parts.hooks, replies);
  const codecOf = (pq: ProcessQueue, record: MessageRecord) => invoker.bindingOf(pq, record)?.codec ?? jsonCodec;
  const work = new QueueWork(ctx.budget, progress, codecOf, ctx.namespace);
  const consume =
    ctx.options.consumeMode === 'ORDERLY'
      ? new OrderlyConsumeService(ctx, invoker, work, transport.retry, lockManager)
      : new ConcurrentConsumeService(ctx, invoker, work, transport.retry);
  let rebalance: RebalanceService | undefined;
  const queues = new ProcessQueueTable(
    ctx,
    {
      subscriptions,
      progress,
      work,
      consume,
      puller: transport.puller,
      locks: lockManager,
      startOffset: (mq) =>
        computeStartOffset(
          mq,
          ctx.options,
          progress,
          transport.offsets,
          progress.remembered(mq),
          rebalance?.lateSince(mq),
        ),
    },
    host,
  );
  rebalance = new RebalanceService(
    ctx,
    {
      topics: () => [...subscriptions.keys()],
      applyAllocation: (...args) => queues.applyAllocation(...args),
      beforeAllocation: (...args) => queues.beforeAllocation(...args),
      dropUnsubscribed: (topics) => queues.dropUnsubscribed(topics),
      queuesChanged: (...args) => parts.queuesChanged(...args),
    },
    { strategy: parts.strategy, routes: transport.routes, membership: transport.membership },
  );
  return { invoker, consume, queues, rebalance };
}
