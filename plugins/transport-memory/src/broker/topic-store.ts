import { BrokerError, isRetryTopic, type MessageQueue, type OutgoingRecord } from '@mqkit/core';
import { NAME_PATTERN, getOrCreate } from '@mqkit/core/internal';
import { Subject, type Observable } from 'rxjs';
import { ConsumeQueue } from './consume-queue';
import { MessageIndex } from './message-index';
import { StoredMessage, storeSizeOf } from './stored-message';

/**
 * The embedded cluster's storage: topics with queues on one or more brokers, appends with queue offsets and
 * commit-log offsets, and route changes. No retention: everything stays until the broker is closed.
 */
export class TopicStore {
  private readonly topics = new Map<string, Map<string, ConsumeQueue[]>>();
  private readonly commitLogOffsets = new Map<string, number>();
  private readonly routeChangeSubject = new Subject<string>();
  /** Every stored message by key, UNIQ_KEY and commit-log offset (admin lookups). */
  readonly index = new MessageIndex(this);

  constructor(readonly brokerNames: readonly string[]) {
    for (const name of brokerNames) this.commitLogOffsets.set(name, 0);
  }

  get routeChanges$(): Observable<string> {
    return this.routeChangeSubject.asObservable();
  }

  has(topic: string): boolean {
    return this.topics.has(topic);
  }

  /** Creates (or grows) a topic with `queues` queues on the listed brokers; RocketMQ's name and count rules. */
  createTopic(topic: string, queues: number, brokers: readonly string[]): void {
    if (!NAME_PATTERN.test(topic) || topic.length > (isRetryTopic(topic) || topic.startsWith('%DLQ%') ? 255 : 127)) {
      throw new BrokerError(`topic name ${JSON.stringify(topic)} is invalid`, { responseCode: 29 });
    }
    if (!Number.isInteger(queues) || queues < 1 || queues > 1024)
      throw new BrokerError(`queue count ${queues} is invalid`, { responseCode: 29 });
    const config = getOrCreate(this.topics, topic, () => new Map());
    let changed = false;
    for (const broker of brokers) {
      if (!this.brokerNames.includes(broker)) throw new BrokerError(`no broker named ${broker}`, { responseCode: 1 });
      const list = config.get(broker) ?? [];
      while (list.length < queues) {
        list.push(new ConsumeQueue());
        changed = true;
      }
      config.set(broker, list);
    }
    if (changed) this.routeChangeSubject.next(topic);
  }

  /** Every topic, in creation order. */
  topicNames(): string[] {
    return [...this.topics.keys()];
  }

  /** Topics with queues on this broker. */
  topicsOn(broker: string): string[] {
    return [...this.topics.entries()].filter(([, config]) => config.has(broker)).map(([topic]) => topic);
  }

  /** Emits a route change of the topic (a broker of it crashed or came back). */
  announce(topic: string): void {
    this.routeChangeSubject.next(topic);
  }

  /** Creates a 1-queue topic on one broker unless it is there (retry and DLQ topics). */
  ensureOneQueue(topic: string, broker: string): void {
    if (!this.topics.get(topic)?.get(broker)) this.createTopic(topic, 1, [broker]);
  }

  queue(mq: MessageQueue): ConsumeQueue | undefined {
    return this.topics.get(mq.topic)?.get(mq.brokerName)?.[mq.queueId];
  }

  requireQueue(mq: MessageQueue): ConsumeQueue {
    const queue = this.queue(mq);
    if (!queue)
      throw new BrokerError(`topic[${mq.topic}] queue ${mq.queueId} on ${mq.brokerName} not exist`, {
        responseCode: 17,
        brokerName: mq.brokerName,
      });
    return queue;
  }

  /** Every queue of a topic, brokers in name order. */
  queues(topic: string): MessageQueue[] {
    const config = this.topics.get(topic);
    if (!config) return [];
    const out: MessageQueue[] = [];
    for (const broker of [...config.keys()].sort()) {
      const n = config.get(broker)!.length;
      for (let queueId = 0; queueId < n; queueId++) out.push({ topic, brokerName: broker, queueId });
    }
    return out;
  }

  /** Every message stored in a topic (optionally one broker / queue), in offset order per queue. */
  messages(topic: string, brokerName?: string, queueId?: number): StoredMessage[] {
    const config = this.topics.get(topic);
    if (!config) return [];
    const out: StoredMessage[] = [];
    for (const [broker, queues] of config) {
      if (brokerName !== undefined && broker !== brokerName) continue;
      queues.forEach((q, id) => {
        // A loop, not push(...spread): a queue can hold more messages than a call takes arguments.
        if (queueId === undefined || id === queueId) for (const m of q.messages) out.push(m);
      });
    }
    return out;
  }

  append(
    mq: MessageQueue,
    record: Omit<OutgoingRecord, 'reconsumeTimes' | 'maxReconsumeTimes'>,
    bornHost: string,
    reconsumeTimes: number,
  ): StoredMessage {
    const queue = this.requireQueue(mq);
    const clo = this.commitLogOffsets.get(mq.brokerName)!;
    const stored = new StoredMessage(
      mq.topic,
      mq.brokerName,
      mq.queueId,
      queue.maxOffset,
      clo,
      record.body,
      record.properties,
      record.flag,
      record.sysFlag,
      record.bornTimestamp,
      bornHost,
      Date.now(),
      this.storeHost(mq.brokerName),
      reconsumeTimes,
    );
    this.commitLogOffsets.set(mq.brokerName, clo + storeSizeOf(mq.topic, record.body, record.properties));
    queue.append(stored);
    return stored;
  }

  /** The `ip:port` a broker's records name as their store host. */
  storeHost(brokerName: string): string {
    return `127.0.0.1:${10911 + 100 * Math.max(0, this.brokerNames.indexOf(brokerName))}`;
  }
}
