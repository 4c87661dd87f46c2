import { BrokerError, ConfigurationError } from '@mqkit/core';
import { clusterInfoRequest, parseClusterInfo } from '../client/cluster-info.codec';
import { MASTER_ID, type BrokerData } from '../client/topic-route.codec';
import { ResponseCode } from '../protocol/remoting-codes';
import type { RocketMqSession } from '../transport/rocketmq-session';

/** Every broker group the name server lists (GET_BROKER_CLUSTER_INFO), sorted by name. */
export async function clusterBrokers(session: RocketMqSession): Promise<BrokerData[]> {
  return parseClusterInfo(await session.nameServers.request(clusterInfoRequest(), session.options.requestTimeoutMs));
}

/**
 * The masters an admin write goes to, as `mqadmin ... -c <cluster>` picks them: every master the name server lists,
 * or only the named brokers, which must all be masters there (else a ConfigurationError naming `source`).
 */
export async function targetMasters(
  session: RocketMqSession,
  source: string,
  brokers: readonly string[] | undefined,
): Promise<BrokerData[]> {
  const masters = (await clusterBrokers(session)).filter((b) => b.brokerAddrs.has(MASTER_ID));
  const targets = brokers ? masters.filter((b) => brokers.includes(b.brokerName)) : masters;
  const unknown = (brokers ?? []).filter((name) => !targets.some((b) => b.brokerName === name));
  if (unknown.length > 0 || targets.length === 0) {
    throw new ConfigurationError({
      source,
      option: 'brokers',
      value: brokers ?? [],
      allowed: `masters registered with the name server (${masters.map((b) => b.brokerName).join(', ') || 'none'})`,
    });
  }
  return targets;
}

/** The address admin reads go to (BrokerData.selectBrokerAddr): the master, else the lowest-numbered slave. */
export function readAddress(broker: BrokerData): string | undefined {
  const master = broker.brokerAddrs.get(MASTER_ID);
  if (master !== undefined) return master;
  const ids = [...broker.brokerAddrs.keys()].sort((a, b) => a - b);
  return ids.length > 0 ? broker.brokerAddrs.get(ids[0]!) : undefined;
}

/** What the name server answers for a topic it has no route of, as a BrokerError of kind topic-not-found. */
export function noRouteError(topic: string): BrokerError {
  return new BrokerError(`No topic route info in name server for the topic: ${topic}`, {
    responseCode: ResponseCode.TOPIC_NOT_EXIST,
    kind: 'topic-not-found',
  });
}
