import type { Message } from '../model/message';
import type { MessageQueue } from '../model/message-queue';
import type { ProfileOption } from '../options/profile';
import type { TransportPlugin } from '../spi/plugin';
import type { TransportRoles } from '../spi/transport.plugin';
import { ConfigurationError } from '../errors/configuration.error';
import { withoutNamespace, wrapNamespace } from '../model/namespace';
import { IssueCollector, checkNamespace } from '../options/option-checks';
import type { ConsumerConnections, TopicQueueStats } from '../spi/cluster-admin.role';
import { AdminReads, type ConsumerProgress, type QueryByKeyOptions } from './admin-reads';
import { ClientHost } from './client-host';
import type { SubscriptionGroupOptions } from './subscription-group-options';

/** Cluster administration through a transport: what a deployment script or a test needs before consumers start. */
export interface Admin {
  /** Creates (or grows) a topic with `queues` queues on every master (or the listed brokers) and waits for its route. */
  createTopic(options: { topic: string; queues: number; brokers?: readonly string[] }): Promise<void>;
  /** Moves a group's offsets of a topic to a time; the broker pushes them to every running member. */
  resetOffsetByTimestamp(group: string, topic: string, timestamp: number): Promise<void>;
  /** The topic's readable queues, as consumers see them. */
  queues(topic: string): Promise<readonly MessageQueue[]>;
  /** Per queue of each topic the group consumes (retry topic left out): broker and consumer offset, lag, owner (`mqadmin consumerProgress`). */
  consumerProgress(group: string): Promise<ConsumerProgress[]>;
  /** Min and max offset and last store time of every queue of the topic (`mqadmin topicStatus`). */
  topicStats(topic: string): Promise<TopicQueueStats[]>;
  /** The group's online members and what they registered (`mqadmin consumerConnection`); ConsumerNotOnlineError when none. */
  consumerConnections(group: string): Promise<ConsumerConnections>;
  /** Messages of the topic carrying `key` in their KEYS, stored within [begin, end] (`mqadmin queryMsgByKey`). */
  queryMessagesByKey<T = unknown>(topic: string, key: string, options: QueryByKeyOptions): Promise<Message<T>[]>;
  /** The message with this offset message id, or UNIQ_KEY given its topic (`mqadmin queryMsgById`); MessageNotFoundError when none. */
  viewMessage<T = unknown>(id: string, options?: { readonly topic?: string }): Promise<Message<T>>;
  /** Creates or replaces a subscription group on every master, or the listed brokers (`mqadmin updateSubGroup`). */
  createSubscriptionGroup(group: string, options?: SubscriptionGroupOptions): Promise<void>;
  /** Every topic the name server knows, sorted; `{ system: false }` leaves RocketMQ's own out (`mqadmin topicList`). */
  topics(options?: { readonly system?: boolean }): Promise<string[]>;
  /** The connected transport's roles, for what the admin methods do not cover. */
  readonly transport: TransportRoles;
  close(): Promise<void>;
}

/**
 * An admin client on its own connection.
 *
 * @example
 * ```ts
 * const admin = await createAdmin({ transport: rocketmqTransport({ nameServer: '127.0.0.1:9876' }) });
 * await admin.createTopic({ topic: 'orders', queues: 8 });
 * await admin.close();
 * ```
 */
export async function createAdmin(options: {
  transport: TransportPlugin;
  profile?: ProfileOption;
  instanceName?: string;
  namespace?: string;
}): Promise<Admin> {
  const issues = new IssueCollector('createAdmin');
  checkNamespace(issues, options.namespace);
  if (issues.issues.length > 0) throw new ConfigurationError(issues.issues);
  const host = new ClientHost('createAdmin', options);
  const roles = await host.connect(options.transport);
  // Names given in the namespace are wrapped as RocketMQ's admin does; queues come back with plain topics.
  const wrap = (name: string) => wrapNamespace(options.namespace, name);
  const reads = new AdminReads((neededBy) => host.require('clusterAdmin', neededBy), options.namespace);
  return {
    createTopic: (o) => host.require('topicAdmin', 'createTopic').createTopic({ ...o, topic: wrap(o.topic) }),
    resetOffsetByTimestamp: (group, topic, timestamp) =>
      host.require('offsetAdmin', 'resetOffsetByTimestamp').resetOffsetByTimestamp(wrap(group), wrap(topic), timestamp),
    queues: async (topic) =>
      (await roles.routes.subscribeQueues(wrap(topic))).map((mq) => ({
        ...mq,
        topic: withoutNamespace(options.namespace, mq.topic),
      })),
    consumerProgress: (group) => reads.consumerProgress(group),
    topicStats: (topic) => reads.topicStats(topic),
    consumerConnections: (group) => reads.consumerConnections(group),
    queryMessagesByKey: (topic, key, o) => reads.queryMessagesByKey(topic, key, o),
    viewMessage: (id, o) => reads.viewMessage(id, o),
    createSubscriptionGroup: (group, o) => reads.createSubscriptionGroup(group, o),
    topics: (o) => reads.topics(o),
    transport: roles,
    close: () => host.close(),
  };
}
