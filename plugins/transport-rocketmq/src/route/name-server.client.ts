import { RemotingConnectionError } from '../errors/remoting-connection.error';
import type { RemotingCommand } from '../protocol/remoting-command';
import type { RemotingClient } from '../remoting/remoting-client';
import type { OutgoingRequest } from '../remoting/remoting-request';

/**
 * Talks to the name servers with RocketMQ's failover (NettyRemotingClient.getAndCreateNameserverChannel): one name
 * server is used, starting at a random one, until a request to it fails to get an answer; then the next one is
 * tried, round the list, each at most once per request. An answer, whatever its code, ends the request: the name
 * servers hold the same routes, so another one would say the same.
 */
export class NameServerClient {
  private current: number;

  constructor(
    private readonly client: RemotingClient,
    readonly addresses: readonly string[],
    random: () => number = Math.random,
  ) {
    this.current = Math.floor(random() * addresses.length) % Math.max(1, addresses.length);
  }

  /** The name server in use. */
  get active(): string {
    return this.addresses[this.current]!;
  }

  /**
   * Sends to the active name server, failing over on connection errors and timeouts; rejects with the last error.
   * A failed server stops being the active one, so the next request starts at the next server. Each try gets what
   * is left of the budget but at least a tenth of it, so a hung first server still leaves the next one a chance
   * (the whole call may then overrun the budget by a tenth per extra server).
   */
  async request(request: OutgoingRequest, timeoutMs: number): Promise<RemotingCommand> {
    let lastError: unknown;
    const deadline = Date.now() + timeoutMs;
    const start = this.current;
    for (let tried = 0; tried < this.addresses.length; tried++) {
      const index = (start + tried) % this.addresses.length;
      try {
        const response = await this.client.request(this.addresses[index]!, request, {
          timeoutMs: Math.max(deadline - Date.now(), Math.ceil(timeoutMs / 10)),
        });
        this.current = index;
        return response;
      } catch (error) {
        lastError = error;
        this.current = (index + 1) % this.addresses.length;
      }
    }
    throw this.noneAnswered(lastError);
  }

  /**
   * A connection error that names the setting to check: it reaches whoever sends or rebalances first (a newcomer's
   * first send, `ready()`'s last error), where a bare "cannot connect" does not say it was the name server.
   */
  private noneAnswered(error: unknown): unknown {
    if (!(error instanceof RemotingConnectionError)) return error;
    const prefix = `${error.address}: `;
    const reason = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
    const listed = this.addresses.join(';');
    return new RemotingConnectionError(
      `${reason} (no name server answered; rocketmqTransport's nameServer option lists ${listed})`,
      { address: error.address, cause: error },
    );
  }
}
