import type { ConsumeFromWhere, MessageModel } from '../model/constants';
import type { MessageRecord } from '../model/message';
import type { MessageQueue } from '../model/message-queue';
import type { SubscriptionData } from '../model/subscription';

/*
 * The admin reads of a cluster (RocketMQ's MQAdminExt: consumerProgress, topicStatus, consumerConnection,
 * queryMsgByKey, queryMsgById, updateSubGroup, topicList), as one optional transport role. Names are the broker's
 * (namespaces already applied); `createAdmin` composes these into its public methods.
 */

/** One queue's offsets of a consumer group as its broker keeps them (RocketMQ's OffsetWrapper in ConsumeStats). */
export interface QueueConsumeStats {
  readonly mq: MessageQueue;
  /** The queue's max offset: where the next message will be written. */
  readonly brokerOffset: number;
  /** The group's committed offset; 0 when it has committed none (the broker answers so). */
  readonly consumerOffset: number;
  /** Store time of the last consumed message (the one at consumerOffset - 1); 0 when there is none. */
  readonly lastTimestamp: number;
}

/** One queue of a topic (RocketMQ's TopicOffset in TopicStatsTable). */
export interface TopicQueueStats {
  readonly mq: MessageQueue;
  readonly minOffset: number;
  readonly maxOffset: number;
  /** Store time of the newest message (at maxOffset - 1); 0 for an empty queue. */
  readonly lastUpdateTimestamp: number;
}

/** One member's connection to a broker (RocketMQ's Connection). */
export interface ConsumerConnection {
  readonly clientId: string;
  /** `ip:port` of the member's connection, as the broker sees it. */
  readonly clientAddr: string;
  /** RocketMQ's LanguageCode name (`JAVA`, `NODE_JS`, ...). */
  readonly language: string;
  /** RocketMQ's MQVersion ordinal the member reported (479 is V5_3_3); 0 where the transport has no versions. */
  readonly version: number;
}

/** A group's online members and what they registered (RocketMQ's ConsumerConnection). */
export interface ConsumerConnections {
  readonly connections: readonly ConsumerConnection[];
  readonly consumeType: 'CONSUME_PASSIVELY' | 'CONSUME_ACTIVELY' | 'CONSUME_POP';
  readonly messageModel: MessageModel;
  readonly consumeFromWhere: ConsumeFromWhere;
  /** Every subscription the broker holds for the group, `%RETRY%<group>` included, sorted by topic. */
  readonly subscriptions: readonly SubscriptionData[];
}

/** QUERY_MESSAGE: a lookup in the brokers' message index. */
export interface MessageQuery {
  readonly topic: string;
  /** A key of the message's KEYS, or its UNIQ_KEY when `uniqueKey`. */
  readonly key: string;
  readonly maxNum: number;
  /** Store-time bounds, ms since the epoch. */
  readonly beginTimestamp: number;
  readonly endTimestamp: number;
  /** Look the key up as a UNIQ_KEY (RocketMQ's `_UNIQUE_KEY_QUERY`). */
  readonly uniqueKey: boolean;
}

/** RocketMQ's SubscriptionGroupConfig fields mqkit sets (the rest keep the broker's defaults). */
export interface SubscriptionGroupSettings {
  readonly groupName: string;
  readonly consumeEnable: boolean;
  readonly consumeFromMinEnable: boolean;
  readonly consumeBroadcastEnable: boolean;
  readonly consumeMessageOrderly: boolean;
  readonly retryQueueNums: number;
  readonly retryMaxTimes: number;
  readonly brokerId: number;
  readonly whichBrokerWhenConsumeSlowly: number;
  readonly notifyConsumerIdsChangedEnable: boolean;
  readonly consumeTimeoutMinute: number;
}

/** A topic the name server knows. */
export interface TopicListing {
  readonly topic: string;
  /**
   * One of RocketMQ's own topics: TopicValidator's system topics (TBW102, SCHEDULE_TOPIC_XXXX, RMQ_SYS_*,
   * rmq_sys_*, ...), the topics named after the cluster and each broker, and `<cluster>_REPLY_TOPIC`.
   * Retry and DLQ topics are not system topics: they belong to their groups.
   */
  readonly system: boolean;
}

export interface ClusterAdmin {
  /**
   * GET_CONSUME_STATS on every broker of the group: a row per queue of each topic the group has offsets for
   * (filtered by the members' subscriptions while any member is online), retry topic included. Empty when no
   * broker knows the group.
   */
  consumeStats(group: string): Promise<readonly QueueConsumeStats[]>;
  /** GET_TOPIC_STATS_INFO on every broker of the topic; rejects with a topic-not-found BrokerError when none has it. */
  topicStats(topic: string): Promise<readonly TopicQueueStats[]>;
  /** GET_CONSUMER_CONNECTION_LIST; undefined when no member of the group is online. */
  consumerConnections(group: string): Promise<ConsumerConnections | undefined>;
  /** The queues a member says it consumes (the mqTable of its GET_CONSUMER_RUNNING_INFO answer). */
  ownedQueues(group: string, clientId: string): Promise<readonly MessageQueue[]>;
  /**
   * QUERY_MESSAGE to every broker of the topic: the index's hits, at most maxNum per broker. Index keys are
   * hashes, so hits may include other keys' messages; the caller checks keys and topic.
   */
  queryMessages(query: MessageQuery): Promise<readonly MessageRecord[]>;
  /**
   * VIEW_MESSAGE_BY_ID: the message an offset message id (store host + commit-log offset) names. Undefined when
   * the id names no broker of this cluster (a UNIQ_KEY, for one) or the broker has no message at that offset.
   */
  viewMessage(offsetMsgId: string): Promise<MessageRecord | undefined>;
  /** UPDATE_AND_CREATE_SUBSCRIPTIONGROUP on every master, or on the listed brokers. */
  createSubscriptionGroup(settings: SubscriptionGroupSettings, brokers?: readonly string[]): Promise<void>;
  /** GET_ALL_TOPIC_LIST_FROM_NAMESERVER, system topics flagged. */
  topics(): Promise<readonly TopicListing[]>;
}
