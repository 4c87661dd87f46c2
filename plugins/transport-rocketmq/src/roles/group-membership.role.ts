import type { ConsumerRegistration, GroupMembership } from '@mqkit/core';
import { Subject, type Observable, type Subscription } from 'rxjs';
import { consumerListRequest, parseConsumerListResponse } from '../client/consumer-list.codec';
import { heartbeatRequest, parseHeartbeatResponse, unregisterRequest } from '../client/heartbeat.codec';
import { MASTER_ID } from '../client/topic-route.codec';
import type { OutgoingRequest } from '../remoting/remoting-request';
import type { RocketMqSession } from '../transport/rocketmq-session';
import { ConnectionBeats } from './connection-beats';
import { settleAll } from './settle-all';

/**
 * Group membership over HEART_BEAT, UNREGISTER_CLIENT, GET_CONSUMER_LIST_BY_GROUP and the broker's
 * NOTIFY_CONSUMER_IDS_CHANGED. A heartbeat goes to every broker address (masters and slaves) routing a subscribed
 * topic, `%RETRY%<group>` included, which core lists among the subscriptions: the broker registers the group, the
 * subscriptions and this channel, and creates the retry topic. A client with producer groups (transactional, or a
 * requester) also heartbeats each broker as soon as a route names it, before its first send there is answered: the
 * broker sends a transaction check-back or a reply only over a channel that registered the group. A broker forgets a
 * channel's groups when it closes, so a connection that opens again (a broker restart, a network blip) gets the
 * heartbeat at once too, as Java's client does since 5.2 (`enableHeartbeatChannelEventListener`).
 */
export class RocketMqGroupMembership implements GroupMembership {
  private readonly notices = new Subject<string>();
  private readonly registrations = new Map<string, ConsumerRegistration>();
  private readonly routeWatch: Subscription;
  private readonly connectionWatch: Subscription;
  private readonly seenWatch: Subscription;
  /** The heartbeat each broker address got on its current connection (what it carried, whether it was taken). */
  private readonly beats = new ConnectionBeats();
  /** The producer groups of the last heartbeat. */
  private producerGroups: readonly string[] = [];
  /** Heartbeats sent and not answered yet: an unregister waits for them (see `unregister`). */
  private readonly unanswered = new Set<Promise<unknown>>();
  /** Bumped whenever `heartbeat` sets what a heartbeat carries (registrations, producer groups). */
  private content = 0;

  constructor(private readonly session: RocketMqSession) {
    // A broker keeps a client's groups per channel and drops them when the channel closes: a new connection (a
    // broker restarted, a network blip, a promoted master) knows nothing of this client until its heartbeat. The
    // interval one comes up to heartbeatIntervalMs later (30 s by default), and meanwhile the broker finds no
    // channel for a transaction check-back, and lists the group without this member. So a connection that opens
    // gets one heartbeat at once, unless a heartbeat is what opened it (a greeting, the interval one).
    this.connectionWatch = session.remoting.events$.subscribe((event) => {
      if (event.type === 'disconnected') this.beats.closed(event.address);
      if (event.type === 'connected' && this.beats.opened(event.address)) this.connectionOpened(event.address);
    });
    // A subscribed topic that gains a route (created after this consumer started, or a broker back) gets a
    // heartbeat at once, so its brokers know the member before the next rebalance asks them for the group.
    // Producer groups need no heartbeat for a route change: they are per broker, not per topic, and a broker new to
    // the routes is greeted by `brokersSeen$` below.
    this.routeWatch = session.routes.changes$.subscribe((topic) => {
      const registered = [...this.registrations.values()];
      if (!registered.some((r) => r.subscriptions.some((s) => s.topic === topic))) return;
      this.heartbeat(registered, this.producerGroups).catch((error: Error) =>
        session.events.emit('rocketmq.error', { where: 'heartbeat after route change', error }),
      );
    });
    // A producer's first send to a topic is what teaches this client the topic's brokers, and the interval
    // heartbeat comes up to heartbeatIntervalMs later (30 s by default): a broker that checks a half message
    // before then finds no channel of the group and the transaction is never settled. So a broker gets the
    // producer groups once, at once, when a route first names it (one heartbeat per new address, not per send).
    this.seenWatch = session.routes.brokersSeen$.subscribe((addresses) => this.greet(addresses));
  }

  get changes$(): Observable<string> {
    return this.notices.asObservable();
  }

  /** The group's last registration (for GET_CONSUMER_RUNNING_INFO). */
  registration(group: string): ConsumerRegistration | undefined {
    return this.registrations.get(group);
  }

  /** Called for NOTIFY_CONSUMER_IDS_CHANGED. */
  notifyChanged(group: string): void {
    this.notices.next(group);
  }

  /**
   * Sends the heartbeat to every broker of the subscribed topics. Resolves when at least one broker took it (or
   * no topic has a route yet); rejects with the first error when every broker failed.
   */
  async heartbeat(
    registrations: readonly ConsumerRegistration[],
    producerGroups: readonly string[] = [],
  ): Promise<void> {
    for (const registration of registrations) this.registrations.set(registration.group, registration);
    this.producerGroups = producerGroups;
    const content = ++this.content;
    const topics = new Set(registrations.flatMap((r) => r.subscriptions.map((s) => s.topic)));
    // Routes first: a topic not cached yet is fetched; one without a route (not created yet) is skipped.
    await Promise.all([...topics].map((topic) => this.session.routes.route(topic).catch(() => undefined)));
    // A group unregistered while the routes were fetched is not registered again.
    const current = registrations.filter((r) => this.registrations.has(r.group));
    if (current.length === 0 && producerGroups.length === 0) return;
    // Producer groups go to every broker this client knows a route to (Java heartbeats producers to every master):
    // a broker asks one of them to check a half message it stored.
    const targets =
      producerGroups.length > 0
        ? new Set(this.session.routes.topics)
        : new Set(current.flatMap((r) => r.subscriptions.map((s) => s.topic)));
    const addresses = this.session.routes.addressesOf(targets);
    const request = heartbeatRequest({ clientId: this.session.clientId, consumers: current, producerGroups });
    await settleAll(
      addresses.map(async (address) => {
        // The route lookups above may have greeted a new broker with this very content, or a connection that
        // opened meanwhile got it: that heartbeat counts.
        if (await this.beats.taken(address, content)) return;
        await this.send(address, request, content);
      }),
      (error, i) => this.session.events.emit('rocketmq.error', { where: 'heartbeat', error, address: addresses[i] }),
    );
  }

  /**
   * One heartbeat to each broker address a route just named, when this client has producer groups to register
   * (with the consumers too: the same content as the interval heartbeat). Skips addresses heartbeated on their
   * current connection already; a failure is reported and left to the interval heartbeat (or the broker's next
   * appearance in a route).
   */
  private greet(addresses: readonly string[]): void {
    if (this.producerGroups.length === 0) return;
    const request = this.currentRequest();
    for (const address of addresses) {
      if (this.beats.has(address)) continue;
      this.send(address, request, this.content).catch((error: Error) =>
        this.session.events.emit('rocketmq.error', { where: 'heartbeat to a new broker', error, address }),
      );
    }
  }

  /**
   * A connection to a broker opened with no heartbeat of this client waiting for it (a reconnect after a drop, or
   * one opened by another request): the broker gets the heartbeat once, now, when the interval heartbeat goes
   * there. A failure is reported and left to the interval heartbeat.
   */
  private connectionOpened(address: string): void {
    if (!this.heartbeatsGoTo(address)) return;
    this.send(address, this.currentRequest(), this.content).catch((error: Error) =>
      this.session.events.emit('rocketmq.error', { where: 'heartbeat on a new connection', error, address }),
    );
  }

  /**
   * Whether heartbeats go to `address`: with producer groups, every broker a cached route names; else the brokers
   * of the subscribed topics; never a name server, or a broker no route names (an admin's direct address).
   */
  private heartbeatsGoTo(address: string): boolean {
    if (this.producerGroups.length > 0) return this.session.routes.brokerNameOf(address) !== undefined;
    const topics = new Set([...this.registrations.values()].flatMap((r) => r.subscriptions.map((s) => s.topic)));
    return topics.size > 0 && this.session.routes.addressesOf(topics).includes(address);
  }

  /** The heartbeat with everything this client registers: every consumer group, the producer groups. */
  private currentRequest(): OutgoingRequest {
    return heartbeatRequest({
      clientId: this.session.clientId,
      consumers: [...this.registrations.values()],
      producerGroups: this.producerGroups,
    });
  }

  /**
   * One heartbeat to `address`, remembered as what its current connection was told (see {@link ConnectionBeats});
   * rejects when the broker did not take it. It may run inside a route lookup or a connection event: a request that
   * throws at once (a closed client) rejects instead of throwing.
   */
  private send(address: string, request: OutgoingRequest, content: number): Promise<void> {
    const answer = this.tracked(
      (async () => void parseHeartbeatResponse(await this.session.request(address, request)))(),
    );
    this.beats.record(address, content, answer);
    return answer;
  }

  /**
   * UNREGISTER_CLIENT to every broker of the group's topics; the broker then notifies the other members. Heartbeats
   * still unanswered are waited for first: the broker runs heartbeats and unregisters on different threads, so a
   * heartbeat sent just before could register the member again after its unregister, and one still queued when the
   * connection closes registers a closed channel. Either leaves a member that is gone in the group's list (and
   * queues allocated to it) until the broker's channel expiry, two minutes later.
   */
  async unregister(group: string): Promise<void> {
    const registration = this.registrations.get(group);
    this.registrations.delete(group);
    await Promise.allSettled([...this.unanswered]);
    const topics = registration?.subscriptions.map((s) => s.topic) ?? [];
    const addresses = this.session.routes.addressesOf(topics);
    const request = unregisterRequest(this.session.clientId, { consumerGroup: group });
    await settleAll(
      addresses.map(async (address) => {
        const response = await this.session.request(address, request);
        if (response.code !== 0)
          throw new Error(
            `unregister of ${group} at ${address} answered code ${response.code} ${response.remark ?? ''}`,
          );
      }),
      (error, i) => this.session.events.emit('rocketmq.error', { where: 'unregister', error, address: addresses[i] }),
    );
  }

  /**
   * The group's members: the union of what every broker of `topic` lists. RocketMQ's findConsumerIdList asks one
   * broker at random, so members that ask different brokers can disagree, and a broker that just restarted knows
   * only the members whose heartbeat reached it since: two members then allocate the same queue to themselves
   * until the next heartbeat. Every member heartbeats every broker, so the union is the membership as soon as one
   * broker knows it. Brokers that fail are skipped; all failing rejects with the first error. No route: empty.
   */
  async consumerIds(group: string, topic: string): Promise<readonly string[]> {
    const route = await this.session.routes.route(topic);
    const brokers = (route?.brokerDatas ?? []).filter((b) => b.brokerAddrs.size > 0);
    if (brokers.length === 0) return [];
    const ids = new Set<string>();
    const errors: unknown[] = [];
    await Promise.all(
      brokers.map(async (broker) => {
        const address = broker.brokerAddrs.get(MASTER_ID) ?? [...broker.brokerAddrs.values()][0]!;
        try {
          // A broker this client has not heartbeated yet (just restarted or promoted) would list the group without
          // it: register first (or wait for the heartbeat on its way), so its answer counts this member at least.
          if (this.registrations.size > 0 && !(await this.beats.taken(address)))
            await this.send(address, this.currentRequest(), this.content);
          for (const id of parseConsumerListResponse(
            await this.session.request(address, consumerListRequest(group)),
            group,
            broker.brokerName,
          ))
            ids.add(id);
        } catch (error) {
          errors.push(error);
        }
      }),
    );
    if (errors.length === brokers.length) throw errors[0];
    return [...ids];
  }

  private tracked<T>(request: Promise<T>): Promise<T> {
    this.unanswered.add(request);
    const done = (): void => void this.unanswered.delete(request);
    request.then(done, done);
    return request;
  }

  close(): void {
    this.routeWatch.unsubscribe();
    this.connectionWatch.unsubscribe();
    this.seenWatch.unsubscribe();
    this.notices.complete();
  }
}
