import { IllegalStateError } from '@mqkit/core';
import { Subject, type Observable, type Subscription } from 'rxjs';
import type { RemotingCommand } from '../protocol/remoting-command';
import { RemotingConnection, type RemotingConnectionOptions } from './remoting-connection';
import type { RemotingEvent } from './remoting-events';
import type { OutgoingRequest, RequestOptions } from './remoting-request';

/**
 * Keeps one {@link RemotingConnection} per address (name servers and brokers alike), as RocketMQ's
 * NettyRemotingClient keeps one channel per address, and merges their events into one stream.
 */
export class RemotingClient {
  private readonly connections = new Map<string, { connection: RemotingConnection; subscription: Subscription }>();
  private readonly events = new Subject<RemotingEvent>();
  private closed = false;

  constructor(private readonly options: RemotingConnectionOptions = {}) {}

  /** Every connection's events; completes on close. */
  get events$(): Observable<RemotingEvent> {
    return this.events.asObservable();
  }

  /** Addresses with a connection (open, connecting or reconnecting). */
  get addresses(): readonly string[] {
    return [...this.connections.keys()];
  }

  /** The connection to `address`, created on first use. */
  connection(address: string): RemotingConnection {
    if (this.closed) throw new IllegalStateError('RemotingClient is closed');
    const existing = this.connections.get(address);
    if (existing) return existing.connection;
    const connection = new RemotingConnection(address, this.options);
    const subscription = connection.events$.subscribe((event) => this.events.next(event));
    this.connections.set(address, { connection, subscription });
    return connection;
  }

  request(address: string, request: OutgoingRequest, options: RequestOptions): Promise<RemotingCommand> {
    return this.connection(address).request(request, options);
  }

  oneway(address: string, request: OutgoingRequest, options?: { timeoutMs?: number }): Promise<void> {
    return this.connection(address).oneway(request, options);
  }

  /** Closes and forgets one address (a broker gone from every route). */
  async closeConnection(address: string): Promise<void> {
    const entry = this.connections.get(address);
    if (!entry) return;
    this.connections.delete(address);
    await entry.connection.close();
    entry.subscription.unsubscribe();
  }

  /** Closes every connection; pending requests are rejected. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.connections.keys()].map((address) => this.closeConnection(address)));
    this.events.complete();
  }
}
