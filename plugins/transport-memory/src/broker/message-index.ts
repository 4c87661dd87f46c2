import type { StoredMessage } from './stored-message';

/** What the lookups read: the stored messages of a topic, the topics a broker holds. */
export interface StoredMessages {
  messages(topic: string, brokerName?: string): StoredMessage[];
  topicsOn(broker: string): string[];
}

/**
 * The embedded broker's answers to RocketMQ's IndexService questions (QUERY_MESSAGE by key or UNIQ_KEY,
 * VIEW_MESSAGE_BY_ID by commit-log offset), found by scanning what is stored. An index kept on every store cost
 * two map entries and an array per message, a tenth of the broker's store time and more memory than the messages'
 * own bookkeeping, for questions only admin tools ask.
 */
export class MessageIndex {
  constructor(private readonly stored: StoredMessages) {}

  /** Messages of the topic whose KEYS hold `key`, or whose UNIQ_KEY is `key`, oldest first per queue. */
  lookup(topic: string, key: string): readonly StoredMessage[] {
    return this.stored
      .messages(topic)
      .filter((m) => m.properties.UNIQ_KEY === key || (m.properties.KEYS ?? '').split(' ').includes(key));
  }

  /** The message a broker stored at this commit-log offset. */
  at(brokerName: string, commitLogOffset: number): StoredMessage | undefined {
    for (const topic of this.stored.topicsOn(brokerName)) {
      const found = this.stored.messages(topic, brokerName).find((m) => m.commitLogOffset === commitLogOffset);
      if (found) return found;
    }
    return undefined;
  }
}
