import type { MessageQueue } from '@mqkit/core';
import { MASTER_ID } from '../client/topic-route.codec';
import { BrokerNotFoundError } from '../errors/broker-not-found.error';
import type { TopicRouteTable } from '../route/topic-route.table';

/**
 * The address to ask about a queue: its broker's master, else any member (RocketMQ's
 * findBrokerAddressInSubscribe with onlyThisBroker=false), fetching the queue's topic route once when the broker
 * is unknown. `masterOnly` (sends, locks, send-back, resets) refuses slaves.
 */
export async function brokerAddressFor(
  routes: TopicRouteTable,
  mq: Pick<MessageQueue, 'topic' | 'brokerName'>,
  masterOnly = false,
): Promise<string> {
  const pick = (): string | undefined => {
    const addrs = routes.brokerAddresses(mq.brokerName);
    if (!addrs) return undefined;
    return addrs.get(MASTER_ID) ?? (masterOnly ? undefined : [...addrs.values()][0]);
  };
  let address = pick();
  if (address !== undefined) return address;
  await routes.fetch(mq.topic);
  address = pick();
  if (address === undefined) throw new BrokerNotFoundError(mq.brokerName, mq.topic);
  return address;
}
