import {
  BrokerError,
  PullStatus,
  mqKey,
  type MessagePuller,
  type MessageQueue,
  type PullRequest,
  type PullResult,
} from '@mqkit/core';
import { sleep } from '@mqkit/core/internal';
import { ResponseCode } from '../protocol/remoting-codes';
import '../transport/rocketmq-transport.events';
import { parsePullResponse, pullMessageRequest } from '../client/pull-message.codec';
import { MASTER_ID } from '../client/topic-route.codec';
import { BrokerNotFoundError } from '../errors/broker-not-found.error';
import { RemotingConnectionError } from '../errors/remoting-connection.error';
import type { RocketMqSession } from '../transport/rocketmq-session';

/**
 * How late a held pull may come back after its suspend time: the broker checks expired holds on a 5 s scan
 * (PullRequestHoldService, with longPollingEnable), so an idle pull is answered up to 5 s after the hold ends.
 */
export const BROKER_HOLD_SCAN_MS = 5_000;

/**
 * A slave cannot hold a pull: with nothing new it answers PULL_RETRY_IMMEDIATELY (PullMessageProcessor), so a
 * caught-up consumer reading a slave (its master down) would pull in a tight loop. Such an answer that moved nothing
 * is turned into NO_NEW_MSG after this wait, which stands in for the long poll (RocketMQ's client loops).
 */
export const SLAVE_POLL_MS = 500;

/** How long a queue stays on its master after a slave refused a pull (slaves sync topics every 60 s). */
export const SLAVE_REFUSED_MS = 30_000;

/**
 * PULL_MESSAGE long polls. Each pull goes to the broker the last answer suggested (suggestWhichBrokerId: a slave
 * while the master is busy) or the master, with SUSPEND | SUBSCRIPTION and, to a master only, COMMIT_OFFSET when
 * core gave the pull an offset to carry (RocketMQ's PullAPIWrapper; a slave takes no commits). An aborted signal
 * ends the wait at once: the connection stays open and the broker's late answer is dropped as an unmatched
 * response.
 */
export class RocketMqMessagePuller implements MessagePuller {
  /** Broker id to pull each queue from next (RocketMQ's pullFromWhichNodeTable). */
  private readonly suggested = new Map<string, number>();
  /** Broker id that answered each queue's last pull. */
  private readonly servedBy = new Map<string, number>();
  /** Until when a queue's pulls ignore suggestions of a slave that refused one. */
  private readonly slaveRefusedUntil = new Map<string, number>();

  constructor(private readonly session: RocketMqSession) {}

  async pull(request: PullRequest, signal: AbortSignal): Promise<PullResult> {
    signal.throwIfAborted();
    const key = mqKey(request.mq);
    // The route is almost always known: no promise for it then (one per pull, on the hottest request path).
    const target = this.knownAddress(request, key) ?? (await this.address(request, key));
    try {
      return await this.pullFrom(request, key, target, signal);
    } catch (error) {
      // A slave that refuses (it learns topics from its master only every 60 s: TOPIC_NOT_EXIST; or it serves no
      // reads: SYSTEM_BUSY) is not asked again for a while, and the pull goes to the master at once. RocketMQ's
      // client keeps asking the slave, 3 s apart, until the slave's next sync.
      if (!(error instanceof BrokerError) || target.brokerId === MASTER_ID || signal.aborted) throw error;
      this.slaveRefusedUntil.set(key, Date.now() + SLAVE_REFUSED_MS);
      this.suggested.delete(key);
      const master = await this.address(request, key);
      if (master.brokerId !== MASTER_ID) throw error;
      return this.pullFrom(request, key, master, signal);
    }
  }

  private async pullFrom(
    request: PullRequest,
    key: string,
    target: { address: string; brokerId: number },
    signal: AbortSignal,
  ): Promise<PullResult> {
    const { mq } = request;
    const { address, brokerId } = target;
    // The client timeout must outlast the broker's hold plus its 5 s expiry scan, or idle pulls time out.
    const timeoutMs = Math.max(
      request.timeoutMs,
      request.suspendMs + BROKER_HOLD_SCAN_MS + this.session.options.requestTimeoutMs,
    );
    const wire =
      brokerId === MASTER_ID || request.commitOffset === undefined ? request : { ...request, commitOffset: undefined };
    try {
      const response = await this.session.request(address, pullMessageRequest(wire), { timeoutMs, signal });
      const outcome = parsePullResponse(response, mq);
      if (outcome.suggestWhichBrokerId === MASTER_ID) this.suggested.delete(key);
      else this.suggested.set(key, outcome.suggestWhichBrokerId);
      this.noteBroker(mq, key, brokerId, address);
      const { result } = outcome;
      if (
        brokerId !== MASTER_ID &&
        response.code === ResponseCode.PULL_RETRY_IMMEDIATELY &&
        result.nextBeginOffset === request.offset
      ) {
        await sleep(Math.min(SLAVE_POLL_MS, request.suspendMs), signal);
        signal.throwIfAborted();
        return { ...result, status: PullStatus.NO_NEW_MSG };
      }
      return result;
    } catch (error) {
      // A broker that dropped the connection may be gone (crashed, or a master replaced by a controller failover):
      // ask for the route now, so the next pull finds its successor rather than waiting for the 30 s refresh.
      if (error instanceof RemotingConnectionError && !signal.aborted) {
        this.suggested.delete(key);
        this.session.routes.invalidate(mq.topic);
        this.session.routes
          .fetch(mq.topic)
          .catch((e: Error) =>
            this.session.events.emit('rocketmq.error', { where: 'route after lost connection', error: e }),
          );
      }
      throw error;
    }
  }

  /** Reports a queue's pulls moving to another member (first pull of a queue included). */
  private noteBroker(mq: MessageQueue, key: string, brokerId: number, address: string): void {
    if (this.servedBy.get(key) === brokerId) return;
    this.servedBy.set(key, brokerId);
    this.session.events.emit('rocketmq.pull-broker', { mq, brokerId, address });
  }

  /** Where to pull `key` from, fetching the route first when the broker's addresses are not known. */
  private async address(request: PullRequest, key: string): Promise<{ address: string; brokerId: number }> {
    const known = this.knownAddress(request, key);
    if (known) return known;
    await this.session.routes.fetch(request.mq.topic);
    const fetched = this.knownAddress(request, key);
    if (!fetched) throw new BrokerNotFoundError(request.mq.brokerName, request.mq.topic);
    return fetched;
  }

  /** RocketMQ's findBrokerAddressInSubscribe over the cached route: the wanted id, else the master, else any member. */
  private knownAddress(request: PullRequest, key: string): { address: string; brokerId: number } | undefined {
    const addrs = this.session.routes.brokerAddresses(request.mq.brokerName);
    if (!addrs || addrs.size === 0) return undefined;
    let wanted = this.suggested.get(key) ?? MASTER_ID;
    const refused = this.slaveRefusedUntil.get(key);
    if (refused !== undefined) {
      if (refused > Date.now()) wanted = MASTER_ID;
      else this.slaveRefusedUntil.delete(key);
    }
    const address = addrs.get(wanted);
    if (address !== undefined) return { address, brokerId: wanted };
    const master = addrs.get(MASTER_ID);
    if (master !== undefined) return { address: master, brokerId: MASTER_ID };
    const [id, any] = addrs.entries().next().value as [number, string];
    return { address: any, brokerId: id };
  }
}
