import type { StoredMessage } from './stored-message';

/**
 * The embedded broker's IndexService: every stored message under `topic#key` for each of its KEYS and for its
 * UNIQ_KEY (one index for both, as RocketMQ's), and by commit-log offset per broker (VIEW_MESSAGE_BY_ID). Entries
 * are in store order; nothing is ever removed (the embedded broker keeps every message).
 */
export class MessageIndex {
  private readonly byKey = new Map<string, StoredMessage[]>();
  private readonly byOffset = new Map<string, Map<number, StoredMessage>>();

  add(message: StoredMessage): void {
    const keys = new Set((message.properties['KEYS'] ?? '').split(' ').filter((k) => k !== ''));
    const uniq = message.properties['UNIQ_KEY'];
    if (uniq) keys.add(uniq);
    for (const key of keys) {
      const indexKey = `${message.topic}#${key}`;
      let list = this.byKey.get(indexKey);
      if (!list) this.byKey.set(indexKey, (list = []));
      list.push(message);
    }
    let offsets = this.byOffset.get(message.brokerName);
    if (!offsets) this.byOffset.set(message.brokerName, (offsets = new Map()));
    offsets.set(message.commitLogOffset, message);
  }

  /** Messages of the topic indexed under `key` (a KEYS entry or a UNIQ_KEY), oldest first. */
  lookup(topic: string, key: string): readonly StoredMessage[] {
    return this.byKey.get(`${topic}#${key}`) ?? [];
  }

  /** The message a broker stored at this commit-log offset. */
  at(brokerName: string, commitLogOffset: number): StoredMessage | undefined {
    return this.byOffset.get(brokerName)?.get(commitLogOffset);
  }
}
