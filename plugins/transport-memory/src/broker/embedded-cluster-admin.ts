import {
  BrokerError,
  ConfigurationError,
  isClusterTopic,
  type ClusterAdmin,
  type ConsumerConnections,
  type MessageQuery,
  type MessageQueue,
  type MessageRecord,
  type QueueConsumeStats,
  type SubscriptionData,
  type SubscriptionGroupSettings,
  type TopicListing,
  type TopicQueueStats,
} from '@mqkit/core';
import { getOrCreate, isConsumerStatus } from '@mqkit/core/internal';
import type { BrokerOutages } from './broker-outages';
import type { GroupRegistry } from './group-registry';
import { offsetMsgIdOf } from './stored-message';
import type { TopicStore } from './topic-store';

/** RocketMQ's maxMsgsNumBatch and defaultQueryMaxNum: the most hits one broker returns, and for a UNIQ_KEY query. */
const MAX_HITS = 64;
const UNIQ_KEY_HITS = 32;

/** What the admin reads look at: the embedded broker's own state. */
export interface EmbeddedAdminState {
  readonly clusterName: string;
  readonly brokerNames: readonly string[];
  readonly store: TopicStore;
  readonly groups: GroupRegistry;
  readonly outages: BrokerOutages;
  /** The group's committed offsets by mqKey. */
  offsetsOf(group: string): ReadonlyMap<string, number> | undefined;
  /** What a connected client answers GET_CONSUMER_RUNNING_INFO with (core's status), undefined when not connected. */
  runningInfo(clientId: string, group: string): { connected: boolean; status: unknown };
}

/**
 * The ClusterAdmin role of the embedded cluster: each answer computed as RocketMQ's brokers compute it
 * (AdminBrokerProcessor, QueryMessageProcessor), over every broker that is up. Subscription group configs are kept
 * per broker and read back with {@link subscriptionGroup}; the embedded broker does not act on them.
 */
export class EmbeddedClusterAdmin implements ClusterAdmin {
  private readonly subscriptionGroups = new Map<string, Map<string, SubscriptionGroupSettings>>();

  private constructor(private readonly state: EmbeddedAdminState) {}

  /** @internal The embedded broker makes its admin; applications read `broker.admin`. */
  static create(state: EmbeddedAdminState): EmbeddedClusterAdmin {
    return new EmbeddedClusterAdmin(state);
  }

  /** getConsumeStats: topics the group has offsets for on each broker, kept when subscribed while members are online. */
  async consumeStats(group: string): Promise<readonly QueueConsumeStats[]> {
    const { store } = this.state;
    const offsets = this.state.offsetsOf(group) ?? new Map<string, number>();
    const subscribed = new Set(
      this.state.groups.members(group).flatMap((m) => m.registration.subscriptions.map((s) => s.topic)),
    );
    const rows: QueueConsumeStats[] = [];
    for (const broker of this.upBrokers()) {
      const topics = new Set(
        [...offsets.keys()]
          .map((key) => key.split('\u0000'))
          .filter(([, b]) => b === broker)
          .map(([topic]) => topic!),
      );
      for (const topic of topics) {
        if (subscribed.size > 0 && !subscribed.has(topic)) continue;
        for (const mq of store.queues(topic).filter((q) => q.brokerName === broker)) {
          const consumerOffset = Math.max(0, offsets.get(`${topic}\u0000${broker}\u0000${mq.queueId}`) ?? 0);
          const queue = store.requireQueue(mq);
          rows.push({
            mq,
            brokerOffset: queue.maxOffset,
            consumerOffset,
            lastTimestamp: queue.messages[consumerOffset - 1]?.storeTimestamp ?? 0,
          });
        }
      }
    }
    return rows;
  }

  async topicStats(topic: string): Promise<readonly TopicQueueStats[]> {
    const queues = this.routed(topic);
    return queues.map((mq) => {
      const queue = this.state.store.requireQueue(mq);
      return {
        mq,
        minOffset: queue.minOffset,
        maxOffset: queue.maxOffset,
        lastUpdateTimestamp: queue.messages[queue.maxOffset - 1]?.storeTimestamp ?? 0,
      };
    });
  }

  /** ConsumerGroupInfo: the newest heartbeat's settings, the subscriptions of every member (newest first wins). */
  async consumerConnections(group: string): Promise<ConsumerConnections | undefined> {
    const members = this.state.groups.members(group);
    const newest = members[0];
    if (!newest) return undefined;
    const subscriptions = new Map<string, SubscriptionData>();
    for (const m of members)
      for (const s of m.registration.subscriptions) if (!subscriptions.has(s.topic)) subscriptions.set(s.topic, s);
    return {
      // No sockets here: the address is the client's IP, port 0, as the embedded broker stores born hosts.
      connections: members.map((m) => ({
        clientId: m.clientId,
        clientAddr: `${m.clientId.split('@')[0]}:0`,
        language: 'NODE_JS',
        version: 0,
      })),
      consumeType: newest.registration.consumeType ?? 'CONSUME_PASSIVELY',
      messageModel: newest.registration.messageModel,
      consumeFromWhere: newest.registration.consumeFromWhere,
      subscriptions: [...subscriptions.values()].sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0)),
    };
  }

  /** callConsumer: the member's own running info, or RocketMQ's SYSTEM_ERROR when it is not a connected member. */
  async ownedQueues(group: string, clientId: string): Promise<readonly MessageQueue[]> {
    const member = this.state.groups.members(group).some((m) => m.clientId === clientId);
    const answer = this.state.runningInfo(clientId, group);
    if (!member || !answer.connected)
      throw new BrokerError(`The Consumer <${group}> <${clientId}> not online`, { responseCode: 1, retriable: false });
    return isConsumerStatus(answer.status) ? answer.status.queues.map((q) => q.mq) : [];
  }

  /** IndexService.queryOffset per broker: the newest hits of `topic#key` within the time range, in commit-log order. */
  async queryMessages(query: MessageQuery): Promise<readonly MessageRecord[]> {
    const brokers = new Set(this.routed(query.topic).map((mq) => mq.brokerName));
    const limit = query.uniqueKey ? UNIQ_KEY_HITS : Math.min(query.maxNum, MAX_HITS);
    const hits = this.state.store.index
      .lookup(query.topic, query.key)
      .filter((m) => m.storeTimestamp >= query.beginTimestamp && m.storeTimestamp <= query.endTimestamp);
    return [...brokers].flatMap((broker) => hits.filter((m) => m.brokerName === broker).slice(-limit));
  }

  /** The broker whose store host the id names, and the message at the id's commit-log offset there. */
  async viewMessage(offsetMsgId: string): Promise<MessageRecord | undefined> {
    if (!/^[0-9A-Fa-f]{32}$/.test(offsetMsgId)) return undefined;
    const id = offsetMsgId.toUpperCase();
    const broker = this.state.brokerNames.find(
      (b) => offsetMsgIdOf(this.state.store.storeHost(b), 0).slice(0, 16) === id.slice(0, 16),
    );
    if (broker === undefined) return undefined;
    this.state.outages.assertUp(broker);
    const offset = Number.parseInt(id.slice(16), 16);
    return Number.isSafeInteger(offset) ? this.state.store.index.at(broker, offset) : undefined;
  }

  async createSubscriptionGroup(settings: SubscriptionGroupSettings, brokers?: readonly string[]): Promise<void> {
    const up = this.upBrokers();
    const targets = brokers ?? up;
    if (targets.some((b) => !up.includes(b))) {
      throw new ConfigurationError({
        source: 'createSubscriptionGroup',
        option: 'brokers',
        value: brokers,
        allowed: `brokers of the embedded cluster that are up (${up.join(', ')})`,
      });
    }
    for (const broker of targets) {
      getOrCreate(this.subscriptionGroups, broker, () => new Map()).set(settings.groupName, { ...settings });
    }
  }

  /** The config a broker holds for a group (mqadmin getConsumerConfig), undefined when none was created there. */
  subscriptionGroup(brokerName: string, group: string): SubscriptionGroupSettings | undefined {
    return this.subscriptionGroups.get(brokerName)?.get(group);
  }

  async topics(): Promise<readonly TopicListing[]> {
    const cluster = { clusterNames: [this.state.clusterName], brokerNames: this.state.brokerNames };
    return this.state.store
      .topicNames()
      .filter((topic) => this.state.outages.routed(this.state.store.queues(topic)).length > 0)
      .map((topic) => ({ topic, system: isClusterTopic(topic, cluster) }));
  }

  private upBrokers(): string[] {
    return this.state.brokerNames.filter((b) => !this.state.outages.isDown(b));
  }

  /** The topic's queues on brokers that are up, or the name server's TOPIC_NOT_EXIST. */
  private routed(topic: string): MessageQueue[] {
    const queues = this.state.outages.routed(this.state.store.queues(topic));
    if (queues.length === 0)
      throw new BrokerError(`No topic route info in name server for the topic: ${topic}`, {
        responseCode: 17,
        kind: 'topic-not-found',
      });
    return queues;
  }
}
