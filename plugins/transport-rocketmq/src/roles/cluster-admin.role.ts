import {
  isClusterTopic,
  retryTopicOf,
  type ClusterAdmin,
  type ConsumerConnections,
  type MessageQuery,
  type MessageQueue,
  type MessageRecord,
  type QueueConsumeStats,
  type SubscriptionGroupSettings,
  type TopicListing,
  type TopicQueueStats,
} from '@mqkit/core';
import { consumeStatsRequest, parseConsumeStats } from '../client/consume-stats.codec';
import { consumerConnectionRequest, parseConsumerConnection } from '../client/consumer-connection.codec';
import {
  parseQueryMessageResponse,
  parseViewMessageResponse,
  queryMessageRequest,
  viewMessageRequest,
} from '../client/query-message.codec';
import { consumerRunningInfoRequest, parseOwnedQueues } from '../client/running-info-request.codec';
import {
  createSubscriptionGroupRequest,
  parseCreateSubscriptionGroupResponse,
} from '../client/subscription-group.codec';
import { MASTER_ID, type BrokerData } from '../client/topic-route.codec';
import { parseTopicList, topicListRequest } from '../client/topic-list.codec';
import { parseTopicStats, topicStatsRequest } from '../client/topic-stats.codec';
import { decodeOffsetMsgId } from '../protocol/message-id.codec';
import type { RocketMqSession } from '../transport/rocketmq-session';
import { BrokerReleases } from '../transport/broker-releases';
import { clusterBrokers, noRouteError, readAddress, targetMasters } from './cluster-brokers';

/**
 * The admin reads as DefaultMQAdminExtImpl and MQAdminImpl do them. Group questions go to the brokers of the
 * group's retry topic (every broker a member heartbeats creates `%RETRY%<group>`), topic questions to the brokers
 * of the topic's route, reads to the master or else a slave (selectBrokerAddr). Unlike Java, a broker that
 * refuses is an error rather than a gap in the answer, and connections are merged from every broker rather than
 * read from one picked at random.
 */
export class RocketMqClusterAdmin implements ClusterAdmin {
  constructor(private readonly session: RocketMqSession) {}

  async consumeStats(group: string): Promise<readonly QueueConsumeStats[]> {
    const brokers = await this.routeBrokers(retryTopicOf(group));
    const answers = await Promise.all(
      brokers.map(async ([broker, address]) =>
        parseConsumeStats(await this.session.request(address, consumeStatsRequest(group)), group, broker.brokerName),
      ),
    );
    return answers.flat();
  }

  async topicStats(topic: string): Promise<readonly TopicQueueStats[]> {
    const brokers = await this.routeBrokers(topic);
    if (brokers.length === 0) throw noRouteError(topic);
    const answers = await Promise.all(
      brokers.map(async ([broker, address]) =>
        parseTopicStats(await this.session.request(address, topicStatsRequest(topic)), topic, broker.brokerName),
      ),
    );
    return answers.flat();
  }

  async consumerConnections(group: string): Promise<ConsumerConnections | undefined> {
    let merged: ConsumerConnections | undefined;
    for (const [broker, address] of await this.routeBrokers(retryTopicOf(group))) {
      const found = parseConsumerConnection(
        await this.session.request(address, consumerConnectionRequest(group)),
        group,
        broker.brokerName,
      );
      if (!found) continue;
      // A member connects to each broker of its topics: the first broker that knows it names its address.
      const known = new Set(merged?.connections.map((c) => c.clientId));
      merged = merged
        ? {
            ...merged,
            connections: [...merged.connections, ...found.connections.filter((c) => !known.has(c.clientId))],
          }
        : found;
    }
    return merged;
  }

  async ownedQueues(group: string, clientId: string): Promise<readonly MessageQueue[]> {
    const brokers = await this.routeBrokers(retryTopicOf(group));
    let failure: unknown;
    // The broker relays the question to the member's connection; one the member is not connected to says so.
    for (const [broker, address] of brokers) {
      try {
        return parseOwnedQueues(
          await this.session.request(address, consumerRunningInfoRequest(group, clientId)),
          group,
          clientId,
          broker.brokerName,
        );
      } catch (error) {
        failure = error;
      }
    }
    if (failure !== undefined) throw failure;
    return [];
  }

  async queryMessages(query: MessageQuery): Promise<readonly MessageRecord[]> {
    const brokers = await this.routeBrokers(query.topic);
    if (brokers.length === 0) throw noRouteError(query.topic);
    // Java waits up to 3× the request timeout for the index walk of each broker.
    const timeoutMs = this.session.options.requestTimeoutMs * 3;
    const answers = await Promise.all(
      brokers.map(async ([broker, address]) => {
        const flagUnsigned =
          this.session.options.credentials !== undefined &&
          !BrokerReleases.atLeast(await this.session.brokerVersion(address), '5.0.0');
        return parseQueryMessageResponse(
          await this.session.request(address, queryMessageRequest(query, { flagUnsigned }), { timeoutMs }),
          query,
          broker.brokerName,
        );
      }),
    );
    return answers.flat();
  }

  async viewMessage(offsetMsgId: string): Promise<MessageRecord | undefined> {
    const id = decodeOffsetMsgId(offsetMsgId);
    if (!id) return undefined;
    // Only brokers of this cluster: a UNIQ_KEY can read as an address, and nothing else should be dialled.
    const broker = (await clusterBrokers(this.session)).find((b) => [...b.brokerAddrs.values()].includes(id.address));
    if (!broker) return undefined;
    return parseViewMessageResponse(
      await this.session.request(id.address, viewMessageRequest(id.commitLogOffset)),
      id.commitLogOffset,
      broker.brokerName,
    );
  }

  async createSubscriptionGroup(settings: SubscriptionGroupSettings, brokers?: readonly string[]): Promise<void> {
    // Masters only, as `mqadmin updateSubGroup -c`: slaves copy subscription groups from their master (SlaveSynchronize).
    for (const broker of await targetMasters(this.session, 'createSubscriptionGroup', brokers)) {
      const response = await this.session.request(
        broker.brokerAddrs.get(MASTER_ID)!,
        createSubscriptionGroupRequest(settings),
      );
      parseCreateSubscriptionGroupResponse(response, settings.groupName, broker.brokerName);
    }
  }

  async topics(): Promise<readonly TopicListing[]> {
    const { session } = this;
    const [names, brokers] = await Promise.all([
      session.nameServers.request(topicListRequest(), session.options.requestTimeoutMs).then(parseTopicList),
      clusterBrokers(session),
    ]);
    const cluster = {
      clusterNames: new Set(brokers.map((b) => b.cluster).filter((c) => c !== '')),
      brokerNames: brokers.map((b) => b.brokerName),
    };
    return names.map((topic) => ({ topic, system: isClusterTopic(topic, cluster) }));
  }

  /** The brokers of a topic's route with the address to read from; none when the name server has no route. */
  private async routeBrokers(topic: string): Promise<Array<[BrokerData, string]>> {
    const route = await this.session.routes.fetch(topic);
    const out: Array<[BrokerData, string]> = [];
    for (const broker of route?.brokerDatas ?? []) {
      const address = readAddress(broker);
      if (address !== undefined) out.push([broker, address]);
    }
    return out;
  }
}
