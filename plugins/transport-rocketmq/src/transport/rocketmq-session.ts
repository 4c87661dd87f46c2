import type { EventBus } from '@mqkit/core';
import type { Subscription } from 'rxjs';
import { MQVersion, RequestCode } from '../protocol/remoting-codes';
import type { RemotingCommand } from '../protocol/remoting-command';
import { RemotingClient } from '../remoting/remoting-client';
import type { OutgoingRequest, RemotingRequestHandler } from '../remoting/remoting-request';
import { NameServerClient } from '../route/name-server.client';
import { TopicRouteTable } from '../route/topic-route.table';
import { BrokerReleases } from './broker-releases';
import type { ResolvedTransportOptions } from './rocketmq-transport.options';
import './rocketmq-transport.events';

/**
 * Everything one app's transport shares: one multiplexed connection per address (name servers and brokers), the
 * name server failover, the route cache, and who this client is. Each role is a thin layer over it.
 */
export class RocketMqSession {
  readonly remoting: RemotingClient;
  readonly nameServers: NameServerClient;
  readonly routes: TopicRouteTable;
  /** Which release each broker runs, learnt from its replies. */
  readonly releases = new BrokerReleases();
  readonly startedAt = Date.now();
  private readonly subscription: Subscription;
  private handler: RemotingRequestHandler | undefined;

  constructor(
    readonly options: ResolvedTransportOptions,
    readonly clientId: string,
    readonly events: EventBus,
  ) {
    this.remoting = new RemotingClient({
      tls: options.tls,
      credentials: options.credentials,
      language: options.language,
      version: MQVersion.V5_3_3,
      connectTimeoutMs: options.requestTimeoutMs,
      reconnect: options.reconnect,
      // Broker requests arrive on any connection; the roles set the handler once they exist.
      requestHandler: (request, context) => this.handler?.(request, context),
    });
    this.subscription = this.remoting.events$.subscribe((event) => {
      if (events.has('rocketmq.connection')) events.emit('rocketmq.connection', event);
      if (event.type === 'request-handler-error')
        events.emit('rocketmq.error', { where: 'broker-request', error: event.error, address: event.address });
      if (event.type === 'protocol-error')
        events.emit('rocketmq.error', { where: 'remoting', error: event.error, address: event.address });
      // A broker connection lost (crashed, partitioned, a master replaced): every member learns of it at once,
      // also one with no queue there, so routes are asked for now and every second until they settle.
      if (event.type === 'disconnected' && !this.nameServers.addresses.includes(event.address))
        this.routes.brokerConnectionLost(event.address);
    });
    this.nameServers = new NameServerClient(this.remoting, options.nameServers);
    this.routes = new TopicRouteTable(
      this.nameServers,
      { requestTimeoutMs: options.requestTimeoutMs, refreshMs: options.routeRefreshMs },
      {
        // RocketMQ's cleanOfflineBroker: a broker no route names any more loses its connection (and its reconnects).
        brokersGone: (addresses) => {
          for (const address of addresses) {
            if (!this.nameServers.addresses.includes(address)) void this.remoting.closeConnection(address);
          }
        },
        refreshFailed: (topic, error) =>
          events.emit('rocketmq.error', { where: `route-refresh ${topic}`, error, address: this.nameServers.active }),
      },
    );
  }

  /** Installs the answerer of broker-initiated requests (NOTIFY_CONSUMER_IDS_CHANGED, ...). */
  onBrokerRequest(handler: RemotingRequestHandler): void {
    this.handler = handler;
  }

  /** A request to a broker, with the ordinary timeout unless given. */
  request(
    address: string,
    request: OutgoingRequest,
    options: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<RemotingCommand> {
    return this.remoting
      .request(address, request, {
        timeoutMs: options.timeoutMs ?? this.options.requestTimeoutMs,
        signal: options.signal,
      })
      .then((reply) => {
        this.releases.record(address, reply);
        return reply;
      });
  }

  /**
   * The MQVersion ordinal of the broker at `address`: learnt from its replies, or asked with one
   * GET_BROKER_RUNTIME_INFO when nothing was asked of it yet.
   */
  brokerVersion(address: string): Promise<number> {
    return this.releases.versionOf(address, () => this.request(address, { code: RequestCode.GET_BROKER_RUNTIME_INFO }));
  }

  /** A oneway request: resolves once written. */
  oneway(address: string, request: OutgoingRequest): Promise<void> {
    return this.remoting.oneway(address, request, { timeoutMs: this.options.requestTimeoutMs });
  }

  start(): void {
    this.routes.start();
  }

  /** Stops the route refresh and closes every connection (pending requests are rejected). */
  async close(): Promise<void> {
    await this.routes.close();
    await this.remoting.close();
    this.subscription.unsubscribe();
  }
}
