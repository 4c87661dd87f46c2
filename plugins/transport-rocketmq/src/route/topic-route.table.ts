import type { MessageQueue, RouteResolver } from '@mqkit/core';
import { Subject, type Observable } from 'rxjs';
import { MASTER_ID, parseTopicRoute, publishQueuesOf, routeRequest, subscribeQueuesOf, type TopicRoute } from '../client/topic-route.codec';
import { ResponseCode } from '../protocol/remoting-codes';
import { defaultTopicRoute } from './default-topic-route';
import type { NameServerClient } from './name-server.client';
import { routeFingerprint } from './route-fingerprint';

interface Entry {
  /** The topic's route; undefined when the name server says the topic does not exist. */
  route: TopicRoute | undefined;
  fingerprint: string;
  /** Asked to re-fetch on next use (after a send or pull failure). */
  stale: boolean;
  /** TBW102's route, capped, while the topic has none (brokers that auto-create topics on send). */
  fallback: TopicRoute | undefined;
}

/** What the table reports besides route changes. */
export interface RouteTableHooks {
  /** Broker addresses no route mentions any more (RocketMQ's cleanOfflineBroker closes their connections). */
  brokersGone?(addresses: readonly string[]): void;
  /** A periodic refresh of one topic failed; its last route stays in use. */
  refreshFailed?(topic: string, error: Error): void;
}

/**
 * Topic routes from the name servers, cached as RocketMQ's MQClientInstance caches them: fetched on first use,
 * refreshed every `refreshMs` (and on the next use after {@link invalidate}), kept when a refresh fails. A route
 * that differs from the cached one is announced on `changes$` (a topic created, grown, a broker gone or back).
 * Broker addresses are looked up in the union of every cached route, by broker name and id.
 */
export class TopicRouteTable implements RouteResolver {
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<TopicRoute | undefined>>();
  private readonly changeSubject = new Subject<string>();
  private brokerAddrs = new Map<string, Map<number, string>>();
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly nameServers: NameServerClient,
    private readonly options: { readonly requestTimeoutMs: number; readonly refreshMs: number },
    private readonly hooks: RouteTableHooks = {},
  ) {}

  get changes$(): Observable<string> {
    return this.changeSubject.asObservable();
  }

  /** Topics with a cached entry (routed or known absent). */
  get topics(): readonly string[] {
    return [...this.entries.keys()];
  }

  async subscribeQueues(topic: string): Promise<readonly MessageQueue[]> {
    const route = await this.route(topic);
    return route ? subscribeQueuesOf(topic, route) : [];
  }

  /**
   * Writable queues. A topic without a route, or whose route has no writable queue (a broker name between masters
   * during a controller failover), is asked for again on every call, as RocketMQ's tryToFindTopicPublishInfo does
   * while its publish info is not ok; when it still has none, RocketMQ's TBW102 fallback applies: brokers that
   * auto-create topics route TBW102, and a send there creates the topic with min(4, TBW102's queues) queues.
   */
  async publishQueues(topic: string): Promise<readonly MessageQueue[]> {
    let entry = this.entries.get(topic);
    if (!entry || entry.stale || (!entry.route && !entry.fallback) || (entry.route && publishQueuesOf(topic, entry.route).length === 0)) {
      try {
        await this.fetch(topic);
      } catch (error) {
        // No name server answers: a route already known still serves (RocketMQ keeps its publish info).
        if (!entry?.route && !entry?.fallback) throw error;
      }
      entry = this.entries.get(topic);
    }
    if (entry?.route) {
      const queues = publishQueuesOf(topic, entry.route);
      if (queues.length > 0) return queues;
    }
    if (!entry || entry.route) return [];
    if (!entry.fallback) {
      entry.fallback = await defaultTopicRoute(this.nameServers, this.options.requestTimeoutMs);
      this.rebuildBrokerTable();
    }
    return entry.fallback ? publishQueuesOf(topic, entry.fallback) : [];
  }

  /** Drops the cached route's freshness: the next use asks the name server again (and compares). */
  invalidate(topic: string): void {
    const entry = this.entries.get(topic);
    if (entry) entry.stale = true;
  }

  /** The cached route, fetched when absent or stale. Rejects when no name server answers and nothing is cached. */
  async route(topic: string): Promise<TopicRoute | undefined> {
    const entry = this.entries.get(topic);
    if (entry && !entry.stale) return entry.route;
    try {
      return await this.fetch(topic);
    } catch (error) {
      if (entry) return entry.route;
      throw error;
    }
  }

  /** Asks the name server now (one request per topic at a time) and updates the cache, announcing a change. */
  fetch(topic: string): Promise<TopicRoute | undefined> {
    const running = this.inflight.get(topic);
    if (running) return running;
    const task = this.load(topic).finally(() => this.inflight.delete(topic));
    this.inflight.set(topic, task);
    return task;
  }

  /** The address of a broker group member (default the master) from every cached route. */
  brokerAddress(brokerName: string, brokerId = MASTER_ID): string | undefined {
    return this.brokerAddrs.get(brokerName)?.get(brokerId);
  }

  /** Every address of a broker group (master first), from every cached route. */
  brokerAddresses(brokerName: string): ReadonlyMap<number, string> | undefined {
    return this.brokerAddrs.get(brokerName);
  }

  /** Every broker address (every id) of the brokers routing these topics, from the cache. */
  addressesOf(topics: Iterable<string>): string[] {
    const out = new Set<string>();
    for (const topic of topics) {
      for (const broker of this.entries.get(topic)?.route?.brokerDatas ?? []) for (const addr of broker.brokerAddrs.values()) out.add(addr);
    }
    return [...out];
  }

  /** Starts the periodic refresh of every cached topic. */
  start(): void {
    if (this.closed || this.timer) return;
    const tick = (): void => {
      this.refreshing = this.refreshAll().finally(() => {
        this.refreshing = undefined;
        if (!this.closed) this.timer = setTimeout(tick, this.options.refreshMs).unref();
      });
    };
    this.timer = setTimeout(tick, this.options.refreshMs).unref();
  }

  /** Refreshes every cached topic now; failures keep the old route and are reported to the hook. */
  async refreshAll(): Promise<void> {
    await Promise.all(
      [...this.entries.keys()].map((topic) =>
        this.fetch(topic).then(
          () => undefined,
          (error: Error) => this.hooks.refreshFailed?.(topic, error),
        ),
      ),
    );
  }

  /** Stops refreshing and completes `changes$`. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.refreshing;
    this.changeSubject.complete();
  }

  private async load(topic: string): Promise<TopicRoute | undefined> {
    const response = await this.nameServers.request(routeRequest(topic), this.options.requestTimeoutMs);
    const route = response.code === ResponseCode.TOPIC_NOT_EXIST ? undefined : parseTopicRoute(response, topic);
    const fingerprint = routeFingerprint(route);
    const previous = this.entries.get(topic);
    this.entries.set(topic, { route, fingerprint, stale: false, fallback: route ? undefined : previous?.fallback });
    this.rebuildBrokerTable();
    if (previous && previous.fingerprint !== fingerprint && !this.closed) this.changeSubject.next(topic);
    return route;
  }

  private rebuildBrokerTable(): void {
    const next = new Map<string, Map<number, string>>();
    for (const entry of this.entries.values()) {
      for (const broker of (entry.route ?? entry.fallback)?.brokerDatas ?? []) this.mergeBroker(next, broker.brokerName, broker.brokerAddrs);
    }
    const after = new Set([...next.values()].flatMap((m) => [...m.values()]));
    const gone = [...this.brokerAddrs.values()].flatMap((m) => [...m.values()]).filter((addr) => !after.has(addr));
    this.brokerAddrs = next;
    if (gone.length > 0) this.hooks.brokersGone?.([...new Set(gone)]);
  }

  private mergeBroker(table: Map<string, Map<number, string>>, brokerName: string, addrs: ReadonlyMap<number, string>): void {
    let known = table.get(brokerName);
    if (!known) table.set(brokerName, (known = new Map()));
    for (const [id, addr] of addrs) known.set(id, addr);
  }
}

