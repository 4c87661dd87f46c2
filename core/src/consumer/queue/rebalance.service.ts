import {
  EMPTY,
  Subject,
  filter,
  fromEvent,
  interval,
  map,
  merge,
  mergeMap,
  of,
  takeUntil,
  timer,
  type Observable,
  type Subscription,
} from 'rxjs';
import { isRetryTopic } from '../../model/constants';
import { compareJavaStrings, compareMessageQueues, type MessageQueue } from '../../model/message-queue';
import type { AllocationStrategy } from '../../spi/allocation-strategy';
import type { GroupMembership, RouteResolver } from '../../spi/transport.roles';
import type { GroupContext } from './group-context';
import { reportError } from '../../events/report-error';
import { coalesceMap } from '../../util/coalesce-map';
import type { RebalanceTarget } from './rebalance-target';
import { RouteMoves } from './route-moves';
import { SubscribedRoutes } from './subscribed-routes';

export type { RebalanceTarget } from './rebalance-target';

export type RebalanceReason = 'start' | 'timer' | 'notice' | 'route' | 'route-lookup' | 'retry' | 'request';

/**
 * RocketMQ's RebalanceService for one consumer: a pass runs at start, every rebalanceIntervalMs, on the broker's
 * membership notices and route changes, and on request; never two at once (a trigger during a pass runs one more
 * pass after it), at least rebalanceMinGapMs apart, and again after rebalanceRetryMs when a pass was not balanced.
 * RxJS carries the triggers: merging five sources and coalescing them into one pass at a time is what it says best.
 * It stops when the group's signal aborts; `idle()` then waits for a running pass. A subscribed topic without a route
 * is looked up again every profile.unroutedLookupMs until it has one (see {@link SubscribedRoutes}).
 */
export class RebalanceService {
  private readonly requests = new Subject<RebalanceReason>();
  private subscription: Subscription | undefined;
  private lastRunEnded = 0;
  private passes = 0;
  private balanced = 0;
  private idleWaiters: (() => void)[] = [];
  private running = false;

  private readonly broadcasting: boolean;
  readonly #routes = new SubscribedRoutes();
  readonly #moves = new RouteMoves();
  #lookupTimer: NodeJS.Timeout | undefined;
  #lookupDelay = 0;

  constructor(
    private readonly ctx: GroupContext,
    private readonly target: RebalanceTarget,
    private readonly deps: {
      readonly strategy: AllocationStrategy;
      readonly routes: RouteResolver;
      readonly membership: GroupMembership;
    },
  ) {
    this.broadcasting = ctx.options.messageModel === 'BROADCASTING';
  }

  /** Completed passes, balanced or not. */
  get completedPasses(): number {
    return this.passes;
  }

  /**
   * Passes that ended balanced: every topic allocated and every allocated queue started. Readiness waits for one,
   * so a member is not "ready" while its first pass left queues untaken (a lock refused, a queue in its route-arrival
   * grace, members not listed yet).
   */
  get balancedPasses(): number {
    return this.balanced;
  }

  /**
   * The subscribed topics whose last lookup found no route. Not the retry topic: a RocketMQ broker creates it at
   * the group's first heartbeat, which goes to the brokers of the group's topics, so it appears with them.
   */
  unroutedTopics(): string[] {
    return this.#routes.unrouted().filter((topic) => !isRetryTopic(topic));
  }

  /** True when `mq` was not routed at the first lookup of its topic: it holds nothing older than the subscription. */
  routedLate(mq: MessageQueue): boolean {
    return this.#routes.routedLate(mq);
  }

  /** For a queue routed late, when the last lookup that lacked it ran (see SubscribedRoutes.lateSince). */
  lateSince(mq: MessageQueue): number | undefined {
    return this.#routes.lateSince(mq);
  }

  start(): void {
    const { membership, routes } = this.deps;
    const { profile, group, signal } = this.ctx;
    if (signal.aborted) return;
    const triggers$: Observable<RebalanceReason> = merge(
      of<RebalanceReason>('start'),
      interval(profile.rebalanceIntervalMs).pipe(map((): RebalanceReason => 'timer')),
      membership.changes$.pipe(
        filter((g) => g === group),
        map((): RebalanceReason => 'notice'),
      ),
      (routes.changes$ ?? EMPTY).pipe(
        filter((topic) => this.target.topics().includes(topic)),
        map((): RebalanceReason => 'route'),
      ),
      this.requests,
    );
    this.subscription = triggers$
      .pipe(
        coalesceMap((reason) => this.pass(reason)),
        // Not balanced (a lock refused, an allocation error, a queue that could not start): try again soon.
        mergeMap((balanced) =>
          balanced ? EMPTY : timer(profile.rebalanceRetryMs).pipe(map((): RebalanceReason => 'retry')),
        ),
        takeUntil(fromEvent(signal, 'abort')),
      )
      .subscribe((reason) => this.requests.next(reason));
  }

  /** Asks for a pass soon (after the current one, if any). */
  request(reason: RebalanceReason = 'request'): void {
    this.requests.next(reason);
  }

  /** After the group's signal aborted: resolves once no pass is running. */
  async idle(): Promise<void> {
    this.subscription?.unsubscribe();
    clearTimeout(this.#lookupTimer);
    this.#lookupTimer = undefined;
    if (this.running) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  /** One pass over every topic; resolves with "balanced". */
  private async pass(reason: RebalanceReason): Promise<boolean> {
    // RocketMQ keeps every pass 1 s apart. A membership notice skips that gap here: while a member that lost a
    // queue waits, the member that gained it is already consuming, and every such millisecond is a duplicate.
    const gap =
      reason === 'notice' || reason === 'route' || reason === 'route-lookup'
        ? 0
        : this.lastRunEnded + this.ctx.profile.rebalanceMinGapMs - Date.now();
    if (gap > 0) await new Promise((resolve) => setTimeout(resolve, gap));
    this.running = true;
    let balanced = true;
    try {
      const topics = this.target.topics();
      for (const topic of topics) {
        if (!(await this.rebalanceTopic(topic, reason === 'route'))) balanced = false;
      }
      this.#routes.retain(new Set(topics));
      this.#moves.retain(new Set(topics));
      await this.target.dropUnsubscribed(new Set(topics));
    } catch (error) {
      reportError(this.ctx, 'rebalance', error);
      balanced = false;
    } finally {
      this.running = false;
      this.lastRunEnded = Date.now();
      this.passes++;
      if (balanced) this.balanced++;
      if (balanced && this.balanced === 1)
        this.ctx.events.emit('consumer.ready', {
          group: this.ctx.group,
          clientId: this.ctx.clientId,
          passes: this.passes,
        });
      this.scheduleLookup();
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
    return balanced;
  }

  private async rebalanceTopic(topic: string, routeChanged: boolean): Promise<boolean> {
    const { target, deps, ctx } = this;
    const { group, clientId } = ctx;
    let mqAll: MessageQueue[];
    let cidAll: string[];
    try {
      mqAll = [...(await deps.routes.subscribeQueues(topic))].sort(compareMessageQueues);
      this.noteRoute(topic, mqAll);
      if (mqAll.length === 0) {
        // RocketMQ: no route yet counts as balanced; the route-change notice, or the next lookup, brings us back.
        target.queuesChanged(topic, [], []);
        return true;
      }
      // Before asking for the members (a round trip the other members make too), so that what this member writes
      // is usually stored before another member that takes a queue reads its offset.
      if (!(await target.beforeAllocation(topic, mqAll, routeChanged))) return false;
      cidAll = this.broadcasting
        ? [clientId]
        : [...(await deps.membership.consumerIds(group, topic))].sort(compareJavaStrings);
    } catch (error) {
      reportError(ctx, 'rebalance', error);
      return false;
    }
    let allocated: MessageQueue[];
    if (this.broadcasting) {
      allocated = mqAll;
    } else {
      if (cidAll.length === 0) return true; // RocketMQ: no consumer list yet counts as balanced
      try {
        allocated = deps.strategy.allocate({ consumerGroup: group, currentCID: clientId, mqAll, cidAll });
      } catch (error) {
        reportError(ctx, 'allocate', error);
        return false;
      }
    }
    const routeMovedAt = this.broadcasting ? undefined : this.#moves.observe(topic, mqAll, cidAll);
    const result = await target.applyAllocation(topic, allocated, mqAll, routeMovedAt);
    if (result.changed) {
      target.queuesChanged(topic, mqAll, allocated);
      ctx.events.emit('consumer.rebalance', {
        group,
        clientId,
        topic,
        strategy: deps.strategy.name,
        cidAll,
        mqAll,
        allocated,
        added: result.added,
        removed: result.removed,
      });
    }
    return result.complete;
  }

  /** Reports a topic that has no route, once, and when it has one again (the retry topic: see unroutedTopics). */
  private noteRoute(topic: string, mqAll: readonly MessageQueue[]): void {
    const change = this.#routes.observe(topic, mqAll);
    if (isRetryTopic(topic)) return;
    const { group, clientId, events } = this.ctx;
    if (change?.kind === 'missing') events.emit('consumer.topic-missing', { group, clientId, topic });
    else if (change?.kind === 'routed')
      events.emit('consumer.topic-routed', { group, clientId, topic, queues: mqAll, missingMs: change.missingMs });
  }

  /**
   * While a subscribed topic has no route: its next lookup, after half of unroutedLookupMs the first time, then
   * after unroutedLookupMs. Not a whole pass: the other topics' member lists are not asked for again.
   */
  private scheduleLookup(): void {
    if (this.ctx.signal.aborted || this.#lookupTimer) return;
    if (this.#routes.unrouted().length === 0) {
      this.#lookupDelay = 0;
      return;
    }
    const every = this.ctx.profile.unroutedLookupMs;
    this.#lookupDelay = this.#lookupDelay === 0 ? every / 2 : every;
    this.#lookupTimer = setTimeout(() => {
      this.#lookupTimer = undefined;
      void this.lookUpUnrouted();
    }, this.#lookupDelay);
  }

  /**
   * Asks for the routes of the topics that had none, past any cache; a pass follows when one has a route now (on
   * RocketMQ the fresh route also comes as a route change). A failed lookup waits for the next one: the passes
   * report what fails.
   */
  private async lookUpUnrouted(): Promise<void> {
    const { routes } = this.deps;
    const subscribed = new Set(this.target.topics());
    let routed = false;
    for (const topic of this.#routes.unrouted()) {
      if (this.ctx.signal.aborted) return;
      if (!subscribed.has(topic)) continue;
      routes.invalidate?.(topic);
      const queues = await routes.subscribeQueues(topic).catch(() => []);
      if (queues.length > 0) routed = true;
    }
    if (this.ctx.signal.aborted) return;
    if (routed) this.request('route-lookup');
    else this.scheduleLookup();
  }
}
