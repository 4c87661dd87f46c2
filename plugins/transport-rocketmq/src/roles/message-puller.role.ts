import { mqKey, type MessagePuller, type PullRequest, type PullResult } from '@mqkit/core';
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
 * PULL_MESSAGE long polls. Each pull goes to the broker the last answer suggested (suggestWhichBrokerId: a slave
 * while the master is busy) or the master, with SUSPEND | SUBSCRIPTION and, to a master only, COMMIT_OFFSET when
 * core gave the pull an offset to carry (RocketMQ's PullAPIWrapper; a slave takes no commits). An aborted signal
 * ends the wait at once: the connection stays open and the broker's late answer is dropped as an unmatched
 * response.
 */
export class RocketMqMessagePuller implements MessagePuller {
  /** Broker id to pull each queue from next (RocketMQ's pullFromWhichNodeTable). */
  private readonly suggested = new Map<string, number>();

  constructor(private readonly session: RocketMqSession) {}

  async pull(request: PullRequest, signal: AbortSignal): Promise<PullResult> {
    signal.throwIfAborted();
    const { mq } = request;
    const key = mqKey(mq);
    const { address, brokerId } = await this.address(request);
    // The client timeout must outlast the broker's hold plus its 5 s expiry scan, or idle pulls time out.
    const timeoutMs = Math.max(request.timeoutMs, request.suspendMs + BROKER_HOLD_SCAN_MS + this.session.options.requestTimeoutMs);
    const wire = brokerId === MASTER_ID || request.commitOffset === undefined ? request : { ...request, commitOffset: undefined };
    try {
      const response = await this.session.request(address, pullMessageRequest(wire), { timeoutMs, signal });
      const outcome = parsePullResponse(response, mq);
      if (outcome.suggestWhichBrokerId === MASTER_ID) this.suggested.delete(key);
      else this.suggested.set(key, outcome.suggestWhichBrokerId);
      return outcome.result;
    } catch (error) {
      // A broker that dropped the connection may be gone: ask for the route again before the next pull.
      if (error instanceof RemotingConnectionError && !signal.aborted) {
        this.suggested.delete(key);
        this.session.routes.invalidate(mq.topic);
      }
      throw error;
    }
  }

  private async address(request: PullRequest): Promise<{ address: string; brokerId: number }> {
    const { mq } = request;
    const { routes } = this.session;
    const wanted = this.suggested.get(mqKey(mq)) ?? MASTER_ID;
    let addrs = routes.brokerAddresses(mq.brokerName);
    if (!addrs || addrs.size === 0) {
      await routes.fetch(mq.topic);
      addrs = routes.brokerAddresses(mq.brokerName);
    }
    if (!addrs || addrs.size === 0) throw new BrokerNotFoundError(mq.brokerName, mq.topic);
    // RocketMQ's findBrokerAddressInSubscribe: the wanted id, else the master, else any member.
    for (const id of [wanted, MASTER_ID]) {
      const address = addrs.get(id);
      if (address !== undefined) return { address, brokerId: id };
    }
    const [id, address] = [...addrs.entries()][0]!;
    return { address, brokerId: id };
  }
}
