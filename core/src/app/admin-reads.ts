import { jsonCodec } from '../definition/json.codec';
import { ConfigurationError } from '../errors/configuration.error';
import { ConsumerNotOnlineError } from '../errors/consumer-not-online.error';
import { MessageNotFoundError } from '../errors/message-not-found.error';
import { MqkitError } from '../errors/mqkit.error';
import { MessageConst, isRetryTopic } from '../model/constants';
import type { Message, MessageRecord } from '../model/message';
import { compareMessageQueues, mqKey, type MessageQueue } from '../model/message-queue';
import { withoutNamespace, wrapNamespace } from '../model/namespace';
import { GROUP_MAX_LENGTH, IssueCollector, TOPIC_MAX_LENGTH, checkName } from '../options/option-checks';
import { ConsumedMessage } from '../model/consumed-message';
import type { ClusterAdmin, ConsumerConnections, TopicQueueStats } from '../spi/cluster-admin.role';
import { subscriptionGroupSettings, type SubscriptionGroupOptions } from './subscription-group-options';

/** One queue of a consumer group's progress (a row of `mqadmin consumerProgress`). */
export interface ConsumerProgress {
  readonly topic: string;
  readonly brokerName: string;
  readonly queueId: number;
  /** The queue's max offset. */
  readonly brokerOffset: number;
  /** The group's committed offset (0 when none). */
  readonly consumerOffset: number;
  /** brokerOffset - consumerOffset: messages not consumed yet (mqadmin's #Diff). */
  readonly lag: number;
  /** Store time of the last consumed message; 0 when none (mqadmin's #LastTime N/A). */
  readonly lastTimestamp: number;
  /** The member that says it consumes the queue (its running info); absent when no online member claims it. */
  readonly clientId?: string;
}

/** `queryMessagesByKey` bounds: store times in ms since the epoch, and how many messages at most. */
export interface QueryByKeyOptions {
  readonly begin: number;
  readonly end: number;
  /** Default 64 (mqadmin's); each broker answers at most its maxMsgsNumBatch (64) hits. */
  readonly maxNum?: number;
}

/** RocketMQ's queryMessageByUniqKey looks back three days (MQAdminImpl). */
const UNIQ_KEY_LOOKBACK_MS = 3 * 24 * 3600 * 1000;
/** MQAdminImpl.queryMessageByUniqKey asks for 32 hits. */
const UNIQ_KEY_MAX_NUM = 32;

/**
 * The admin reads of `createAdmin`, over the transport's ClusterAdmin role: what mqadmin's consumerProgress,
 * topicStatus, consumerConnection, queryMsgByKey, queryMsgById and updateSubGroup do, with namespaces applied
 * (names in are wrapped, names out are plain).
 */
export class AdminReads {
  constructor(
    private readonly role: (neededBy: string) => ClusterAdmin,
    private readonly namespace: string | undefined,
  ) {}

  /**
   * The group's offsets per queue (retry topic left out), sorted by topic, broker and queue; each queue's owner
   * from the online members' running info, as `mqadmin consumerProgress -s true` finds it. Empty for a group no
   * broker knows.
   */
  async consumerProgress(group: string): Promise<ConsumerProgress[]> {
    checkNames({ group });
    const admin = this.role('consumerProgress');
    const wrapped = this.wrap(group);
    const stats = (await admin.consumeStats(wrapped)).filter((s) => !isRetryTopic(s.mq.topic));
    const owners = stats.length === 0 ? new Map<string, string>() : await this.owners(admin, wrapped);
    return [...stats]
      .sort((a, b) => compareMessageQueues(a.mq, b.mq))
      .map((s) => {
        const owner = owners.get(mqKey(s.mq));
        const row = {
          topic: this.plain(s.mq.topic),
          brokerName: s.mq.brokerName,
          queueId: s.mq.queueId,
          brokerOffset: s.brokerOffset,
          consumerOffset: s.consumerOffset,
          lag: s.brokerOffset - s.consumerOffset,
          lastTimestamp: s.lastTimestamp,
        };
        return owner === undefined ? row : { ...row, clientId: owner };
      });
  }

  /** Min and max offset and last store time of every queue of the topic; rejects with BrokerError (topic-not-found) for an unknown topic. */
  async topicStats(topic: string): Promise<TopicQueueStats[]> {
    checkNames({ topic });
    const stats = await this.role('topicStats').topicStats(this.wrap(topic));
    return [...stats]
      .sort((a, b) => compareMessageQueues(a.mq, b.mq))
      .map((s) => ({ ...s, mq: this.plainQueue(s.mq) }));
  }

  /** The group's online members and registration; rejects with ConsumerNotOnlineError when none is online. */
  async consumerConnections(group: string): Promise<ConsumerConnections> {
    checkNames({ group });
    const found = await this.role('consumerConnections').consumerConnections(this.wrap(group));
    if (!found) throw new ConsumerNotOnlineError(group);
    return {
      ...found,
      connections: [...found.connections].sort((a, b) =>
        a.clientId < b.clientId ? -1 : a.clientId > b.clientId ? 1 : 0,
      ),
      subscriptions: found.subscriptions
        .map((s) => ({ ...s, topic: this.plain(s.topic) }))
        .sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0)),
    };
  }

  /**
   * Messages of the topic whose KEYS hold `key`, stored within [begin, end], oldest first; at most maxNum (the
   * newest ones when more match). Empty when none matches (mqadmin reports an error instead).
   */
  async queryMessagesByKey<T = unknown>(topic: string, key: string, options: QueryByKeyOptions): Promise<Message<T>[]> {
    const issues = new IssueCollector('queryMessagesByKey');
    checkName(issues, 'topic', topic, TOPIC_MAX_LENGTH);
    if (typeof key !== 'string' || key === '' || /\s/.test(key))
      issues.add('key', key, 'a non-empty key without spaces (KEYS are separated by spaces)');
    if (!Number.isSafeInteger(options?.begin) || options.begin < 0)
      issues.add('begin', options?.begin, 'a time in ms since the epoch');
    if (!Number.isSafeInteger(options?.end) || options.end < (options?.begin ?? 0))
      issues.add('end', options?.end, 'a time in ms since the epoch, not before begin');
    issues.intRange('maxNum', options?.maxNum, 1, 0x7fffffff);
    if (issues.issues.length > 0) throw new ConfigurationError(issues.issues);
    const wrapped = this.wrap(topic);
    const maxNum = options.maxNum ?? 64;
    const hits = await this.role('queryMessagesByKey').queryMessages({
      topic: wrapped,
      key,
      maxNum,
      beginTimestamp: options.begin,
      endTimestamp: options.end,
      uniqueKey: false,
    });
    // The index holds hashes of `topic#key`: MQAdminImpl keeps only hits whose topic and one of whose keys match.
    const matching = hits.filter(
      (r) => r.topic === wrapped && (r.properties[MessageConst.KEYS] ?? '').split(' ').includes(key),
    );
    return byStoreTime(matching)
      .slice(-maxNum)
      .map((r) => this.message<T>(r));
  }

  /**
   * The message with this id. An offset message id is looked up where it points (VIEW_MESSAGE_BY_ID); a UNIQ_KEY
   * (what `send` returns as msgId) needs the topic and is looked up in the topic's index over the last three days,
   * as RocketMQ's viewMessage does. Rejects with MessageNotFoundError when neither finds it.
   */
  async viewMessage<T = unknown>(id: string, options: { readonly topic?: string } = {}): Promise<Message<T>> {
    const issues = new IssueCollector('viewMessage');
    if (typeof id !== 'string' || !/^(?:[0-9A-Fa-f]{32}|[0-9A-Fa-f]{56})$/.test(id))
      issues.add('id', id, 'a message id: 32 (IPv4) or 56 (IPv6) hex digits');
    if (options.topic !== undefined) checkName(issues, 'topic', options.topic, TOPIC_MAX_LENGTH);
    if (issues.issues.length > 0) throw new ConfigurationError(issues.issues);
    const admin = this.role('viewMessage');
    let viewError: unknown;
    try {
      const record = await admin.viewMessage(id);
      if (record) return this.message<T>(record);
    } catch (error) {
      // As DefaultMQAdminExtImpl.viewMessage: an id that reads as an offset id but cannot be looked up there may
      // still be a UNIQ_KEY; without a topic there is nothing else to try.
      if (options.topic === undefined) throw error;
      viewError = error;
    }
    if (options.topic === undefined) throw new MessageNotFoundError(id, undefined);
    const wrapped = this.wrap(options.topic);
    const now = Date.now();
    const hits = await admin.queryMessages({
      topic: wrapped,
      key: id,
      maxNum: UNIQ_KEY_MAX_NUM,
      beginTimestamp: now - UNIQ_KEY_LOOKBACK_MS,
      endTimestamp: Number.MAX_SAFE_INTEGER,
      uniqueKey: true,
    });
    const found = byStoreTime(
      hits.filter((r) => r.topic === wrapped && (r.properties[MessageConst.UNIQ_KEY] ?? r.offsetMsgId) === id),
    )[0];
    if (!found) throw new MessageNotFoundError(id, options.topic, { cause: viewError });
    return this.message<T>(found);
  }

  /** Creates or replaces the group's subscription group config on every master (or the listed brokers). */
  async createSubscriptionGroup(group: string, options: SubscriptionGroupOptions = {}): Promise<void> {
    // Checked by its plain name, sent by the broker's.
    const settings = { ...subscriptionGroupSettings(group, options), groupName: this.wrap(group) };
    await this.role('createSubscriptionGroup').createSubscriptionGroup(settings, options.brokers);
  }

  /**
   * Every topic the name server knows, sorted; `system: false` leaves out RocketMQ's own topics (see
   * TopicListing.system). With a namespace, only the namespace's topics (plain) and the system topics.
   */
  async topics(options: { readonly system?: boolean } = {}): Promise<string[]> {
    const listing = await this.role('topics').topics();
    const names = listing
      .filter((t) => options.system !== false || !t.system)
      .filter((t) => t.system || !this.namespace || withoutNamespace(this.namespace, t.topic) !== t.topic)
      .map((t) => (t.system ? t.topic : this.plain(t.topic)));
    return [...new Set(names)].sort();
  }

  /** Queue → the member whose running info lists it. A member that left meanwhile, or does not answer, owns none. */
  private async owners(admin: ClusterAdmin, group: string): Promise<Map<string, string>> {
    const connections = await admin.consumerConnections(group);
    const owners = new Map<string, string>();
    const clientIds = [...new Set((connections?.connections ?? []).map((c) => c.clientId))].sort();
    const answers = await Promise.allSettled(clientIds.map((clientId) => admin.ownedQueues(group, clientId)));
    answers.forEach((answer, i) => {
      if (answer.status === 'rejected') {
        // Broker refusals and timeouts (the member is gone, or too old to answer) leave its queues unowned, as
        // mqadmin leaves them N/A; anything else is a bug and surfaces.
        if (answer.reason instanceof MqkitError) return;
        throw answer.reason;
      }
      for (const mq of answer.value) if (!owners.has(mqKey(mq))) owners.set(mqKey(mq), clientIds[i]!);
    });
    return owners;
  }

  private message<T>(record: MessageRecord): Message<T> {
    return new ConsumedMessage<T>(
      record,
      { topic: record.topic, brokerName: record.brokerName, queueId: record.queueId },
      jsonCodec,
      0,
      this.namespace,
    );
  }

  private wrap(name: string): string {
    return wrapNamespace(this.namespace, name);
  }

  private plain(name: string): string {
    return withoutNamespace(this.namespace, name);
  }

  private plainQueue(mq: MessageQueue): MessageQueue {
    return { ...mq, topic: this.plain(mq.topic) };
  }
}

function checkNames(names: { group?: string; topic?: string }): void {
  const issues = new IssueCollector('createAdmin');
  if ('group' in names) checkName(issues, 'group', names.group, GROUP_MAX_LENGTH);
  if ('topic' in names) checkName(issues, 'topic', names.topic, TOPIC_MAX_LENGTH);
  if (issues.issues.length > 0) throw new ConfigurationError(issues.issues);
}

/** Oldest first; ties by queue and offset, so the order is the same on every run. */
function byStoreTime(records: readonly MessageRecord[]): MessageRecord[] {
  return [...records].sort(
    (a, b) => a.storeTimestamp - b.storeTimestamp || compareMessageQueues(a, b) || a.queueOffset - b.queueOffset,
  );
}
