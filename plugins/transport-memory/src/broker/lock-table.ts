import { mqKey, type MessageQueue } from '@mqkit/core';
import { getOrCreate } from '@mqkit/core/internal';

interface LockEntry {
  clientId: string;
  lastUpdate: number;
}

/**
 * RocketMQ's RebalanceLockManager: per group, each queue is locked by one client id; a lock is granted when the
 * queue is free, already held by the caller (which refreshes it), or expired (lockMaxLiveTime, 60 s by default).
 */
export class LockTable {
  private readonly groups = new Map<string, Map<string, LockEntry>>();

  constructor(private readonly expiryMs: number) {}

  lock(group: string, clientId: string, mqs: readonly MessageQueue[], now = Date.now()): MessageQueue[] {
    const table = this.table(group);
    const granted: MessageQueue[] = [];
    for (const mq of mqs) {
      const key = mqKey(mq);
      const entry = table.get(key);
      if (!entry || entry.clientId === clientId || now - entry.lastUpdate > this.expiryMs) {
        table.set(key, { clientId, lastUpdate: now });
        granted.push(mq);
      }
    }
    return granted;
  }

  unlock(group: string, clientId: string, mqs: readonly MessageQueue[]): void {
    const table = this.groups.get(group);
    if (!table) return;
    for (const mq of mqs) {
      const key = mqKey(mq);
      if (table.get(key)?.clientId === clientId) table.delete(key);
    }
  }

  /** A broker restart: the locks of its queues are gone (RocketMQ keeps them in memory only). */
  forgetBroker(brokerName: string): void {
    for (const table of this.groups.values())
      for (const key of [...table.keys()]) if (key.split('\u0000')[1] === brokerName) table.delete(key);
  }

  /** The holder of a queue's lock, if it has not expired. */
  holder(group: string, mq: MessageQueue, now = Date.now()): string | undefined {
    const entry = this.groups.get(group)?.get(mqKey(mq));
    return entry && now - entry.lastUpdate <= this.expiryMs ? entry.clientId : undefined;
  }

  /** True when the client holds any unexpired lock of the group (RocketMQ then dead-letters its retries at once). */
  holdsAny(group: string, clientId: string, now = Date.now()): boolean {
    for (const entry of this.groups.get(group)?.values() ?? [])
      if (entry.clientId === clientId && now - entry.lastUpdate <= this.expiryMs) return true;
    return false;
  }

  private table(group: string): Map<string, LockEntry> {
    return getOrCreate(this.groups, group, () => new Map());
  }
}
