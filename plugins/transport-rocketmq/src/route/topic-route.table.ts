import type { MessageQueue, RouteResolver } from '@mqkit/core';
import { Subject, type Observable } from 'rxjs';
import {
  MASTER_ID,
  parseTopicRoute,
  publishQueuesOf,
  routeRequest,
  subscribeQueuesOf,
  type TopicRoute,
} from '../client/topic-route.codec';
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

/** How often routes are asked for while a broker that left a route is not back. */
export const MISSING_REFRESH_MS = 1_000;
/** For how long a broker that left a route is watched for. */
export const MISSING_WATCH_MS = 5 * 60_000;
/** For how long routes are watched after a broker connection was lost. */
export const SUSPECT_WATCH_MS = 10_000;

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
  private readonly seenSubject = new Subject<readonly string[]>();
  private brokerAddrs = new Map<string, Map<number, string>>();
  private started = false;
  private suspectUntil = 0;
  private nextTickAt = 0;
  /** `<topic>\0<brokerName>` of brokers that left a route, with when. */
  private readonly missing = new Map<string, number>();
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

  /**
   * Broker addresses (any id) that no cached route named before: a topic's first route, the TBW102 fallback of a
   * topic not created yet, a broker new to a route or back in one. Each address is announced once per appearance,
   * however many topics or sends learn it.
   */
  get brokersSeen$(): Observable<readonly string[]> {
    return this.seenSubject.asObservable();
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
    if (
      !entry ||
      entry.stale ||
      (!entry.route && !entry.fallback) ||
      (entry.route && publishQueuesOf(topic, entry.route).length === 0)
    ) {
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

  /** The broker group an address belongs to (any id), from every cached route. */
  brokerNameOf(address: string): string | undefined {
    for (const [name, addrs] of this.brokerAddrs) for (const a of addrs.values()) if (a === address) return name;
    return undefined;
  }

  /** Every broker address (every id) of the brokers routing these topics, from the cache. */
  addressesOf(topics: Iterable<string>): string[] {
    const out = new Set<string>();
    for (const topic of topics) {
      for (const broker of this.entries.get(topic)?.route?.brokerDatas ?? [])
        for (const addr of broker.brokerAddrs.values()) out.add(addr);
    }
    return [...out];
  }

  /**
   * Starts the periodic refresh of every cached topic: every `refreshMs`, and every second while a broker that left
   * a route is not back (for at most 5 minutes, `MISSING_WATCH_MS`). Members learn that a restarted broker is back from
   * their own refresh; on RocketMQ's 30 s schedule they learn it up to 30 s apart, and meanwhile allocate over
   * different queue sets, so that two of them consume some queues at once. Polling while a broker is missing brings
   * them back together within a second.
   */
  start(): void {
    if (this.closed || this.started) return;
    this.started = true;
    this.schedule(this.options.refreshMs);
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.nextTickAt = Date.now() + ms;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.refreshing = this.refreshAll().finally(() => {
        this.refreshing = undefined;
        if (!this.closed && !this.timer)
          this.schedule(
            this.watchingMissing() ? Math.min(this.options.refreshMs, MISSING_REFRESH_MS) : this.options.refreshMs,
          );
      });
    }, ms).unref();
  }

  /**
   * A connection to a broker of a cached route was lost: refresh within a second and keep the one-second cadence
   * for 10 s, `SUSPECT_WATCH_MS` (the name server may still list the broker for a moment), and then for as long as
   * a broker is missing from a route.
   */
  brokerConnectionLost(address: string): void {
    const known = [...this.brokerAddrs.values()].some((addrs) => [...addrs.values()].includes(address));
    if (!known || this.closed) return;
    this.suspectUntil = Date.now() + SUSPECT_WATCH_MS;
    if (this.started && this.timer && this.nextTickAt - Date.now() > MISSING_REFRESH_MS)
      this.schedule(MISSING_REFRESH_MS);
  }

  /** True while some topic misses a broker it had (within the watch window), or a broker connection was just lost. */
  private watchingMissing(): boolean {
    const now = Date.now();
    for (const [key, since] of this.missing) if (now - since > MISSING_WATCH_MS) this.missing.delete(key);
    return this.missing.size > 0 || now < this.suspectUntil;
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

  /** Stops refreshing and completes `changes$` and `brokersSeen$`. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.refreshing;
    this.changeSubject.complete();
    this.seenSubject.complete();
  }

  private async load(topic: string): Promise<TopicRoute | undefined> {
    const response = await this.nameServers.request(routeRequest(topic), this.options.requestTimeoutMs);
    const route = response.code === ResponseCode.TOPIC_NOT_EXIST ? undefined : parseTopicRoute(response, topic);
    const fingerprint = routeFingerprint(route);
    const previous = this.entries.get(topic);
    this.trackMissing(topic, previous?.route, route);
    this.entries.set(topic, { route, fingerprint, stale: false, fallback: route ? undefined : previous?.fallback });
    this.rebuildBrokerTable();
    if (previous && previous.fingerprint !== fingerprint && !this.closed) this.changeSubject.next(topic);
    return route;
  }

  /** Brokers a topic's route had and has no more are watched for (see {@link start}); back, they are forgotten. */
  private trackMissing(topic: string, before: TopicRoute | undefined, after: TopicRoute | undefined): void {
    const now = new Set((after?.brokerDatas ?? []).map((b) => b.brokerName));
    for (const key of [...this.missing.keys()])
      if (key.startsWith(`${topic}\u0000`) && now.has(key.slice(topic.length + 1))) this.missing.delete(key);
    for (const broker of before?.brokerDatas ?? []) {
      const key = `${topic}\u0000${broker.brokerName}`;
      if (!now.has(broker.brokerName) && !this.missing.has(key)) this.missing.set(key, Date.now());
    }
    // A broker just went missing: the next refresh comes within a second (not at the end of a 30 s wait).
    if (
      this.missing.size > 0 &&
      this.started &&
      !this.closed &&
      this.timer &&
      this.nextTickAt - Date.now() > MISSING_REFRESH_MS
    )
      this.schedule(MISSING_REFRESH_MS);
  }

  private rebuildBrokerTable(): void {
    const next = new Map<string, Map<number, string>>();
    for (const entry of this.entries.values()) {
      for (const broker of (entry.route ?? entry.fallback)?.brokerDatas ?? [])
        this.mergeBroker(next, broker.brokerName, broker.brokerAddrs);
    }
    const before = new Set([...this.brokerAddrs.values()].flatMap((m) => [...m.values()]));
    const after = new Set([...next.values()].flatMap((m) => [...m.values()]));
    const gone = [...before].filter((addr) => !after.has(addr));
    const seen = [...after].filter((addr) => !before.has(addr));
    this.brokerAddrs = next;
    if (gone.length > 0) this.hooks.brokersGone?.(gone);
    if (seen.length > 0 && !this.closed) this.seenSubject.next(seen);
  }

  private mergeBroker(
    table: Map<string, Map<number, string>>,
    brokerName: string,
    addrs: ReadonlyMap<number, string>,
  ): void {
    let known = table.get(brokerName);
    if (!known) {
      known = new Map();
      table.set(brokerName, known);
    }
    for (const [id, addr] of addrs) known.set(id, addr);
  }
}
