import { ConfigurationError, type AllocationStrategy, type MessageQueue } from '@mqkit/core';

/**
 * RocketMQ's AllocateMessageQueueByConfig ("CONFIG"): always the configured queues, whatever the group, member or
 * route; no input check (as in Java). Each member needs its own list, and together the lists must cover the topic.
 *
 * @example
 * ```ts
 * new AllocateMessageQueueByConfig([{ topic: 'orders', brokerName: 'broker-a', queueId: 0 }])
 * ```
 */
export class AllocateMessageQueueByConfig implements AllocationStrategy {
  readonly name = 'CONFIG';
  private readonly messageQueueList: readonly MessageQueue[];

  constructor(messageQueueList: Iterable<MessageQueue>) {
    const list = messageQueueList == null ? undefined : [...messageQueueList];
    const bad = list?.find(
      (mq) => typeof mq?.topic !== 'string' || typeof mq.brokerName !== 'string' || !Number.isInteger(mq.queueId),
    );
    if (!list || bad !== undefined) {
      throw new ConfigurationError({
        source: 'AllocateMessageQueueByConfig',
        option: 'messageQueueList',
        value: bad ?? messageQueueList,
        allowed: 'a list of { topic, brokerName, queueId }',
      });
    }
    this.messageQueueList = list.map((mq) => ({ topic: mq.topic, brokerName: mq.brokerName, queueId: mq.queueId }));
  }

  allocate(): MessageQueue[] {
    return [...this.messageQueueList];
  }
}
