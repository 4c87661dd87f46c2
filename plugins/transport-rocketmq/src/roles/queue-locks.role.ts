import { mqKey, type MessageQueue, type QueueLocks } from '@mqkit/core';
import { expectCode } from '../client/broker-response';
import { lockBatchRequest, parseLockBatchResponse, unlockBatchRequest } from '../client/lock-batch.codec';
import type { RocketMqSession } from '../transport/rocketmq-session';
import { brokerAddressFor } from './broker-address';
import { settleAll } from './settle-all';

function byBroker(mqs: readonly MessageQueue[]): Map<string, MessageQueue[]> {
  const out = new Map<string, MessageQueue[]>();
  for (const mq of mqs) {
    const list = out.get(mq.brokerName);
    if (list) list.push(mq);
    else out.set(mq.brokerName, [mq]);
  }
  return out;
}

/**
 * LOCK_BATCH_MQ / UNLOCK_BATCH_MQ, one request per broker master for its queues (RebalanceImpl.lockAll). The
 * broker keeps a lock for rocketmq.broker.rebalance.lockMaxLiveTime (60 s) unless renewed. Remembers when each
 * queue was last locked, for GET_CONSUMER_RUNNING_INFO.
 */
export class RocketMqQueueLocks implements QueueLocks {
  private readonly lockedAt = new Map<string, Map<string, number>>();

  constructor(private readonly session: RocketMqSession) {}

  /** Locks what each broker grants; a broker that fails grants nothing (rejects only when every broker failed). */
  async lock(group: string, mqs: readonly MessageQueue[]): Promise<readonly MessageQueue[]> {
    const granted: MessageQueue[] = [];
    const groups = [...byBroker(mqs)];
    await settleAll(
      groups.map(async ([brokerName, list]) => {
        const address = await brokerAddressFor(this.session.routes, list[0]!, true);
        const response = await this.session.request(address, lockBatchRequest(group, this.session.clientId, list));
        granted.push(...parseLockBatchResponse(response, brokerName));
      }),
      (error, i) => this.session.events.emit('rocketmq.error', { where: `lock on ${groups[i]![0]}`, error }),
    );
    const now = Date.now();
    let table = this.lockedAt.get(group);
    if (!table) {
      table = new Map();
      this.lockedAt.set(group, table);
    }
    const keys = new Set(granted.map(mqKey));
    for (const mq of mqs) if (!keys.has(mqKey(mq))) table.delete(mqKey(mq));
    for (const key of keys) table.set(key, now);
    return granted;
  }

  async unlock(group: string, mqs: readonly MessageQueue[]): Promise<void> {
    const table = this.lockedAt.get(group);
    for (const mq of mqs) table?.delete(mqKey(mq));
    const groups = [...byBroker(mqs)];
    await settleAll(
      groups.map(async ([brokerName, list]) => {
        const address = await brokerAddressFor(this.session.routes, list[0]!, true);
        const request = unlockBatchRequest(group, this.session.clientId, list);
        expectCode(await this.session.request(address, request), `unlock on ${brokerName}`, { brokerName });
      }),
      (error, i) => this.session.events.emit('rocketmq.error', { where: `unlock on ${groups[i]![0]}`, error }),
    );
  }

  /** When this client last got the lock of `mq` for `group`, or undefined when it holds none. */
  lockedSince(group: string, mq: MessageQueue): number | undefined {
    return this.lockedAt.get(group)?.get(mqKey(mq));
  }
}
