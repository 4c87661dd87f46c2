import type { MessageQueue } from '@mqkit/core';

/**
 * Java's `MessageQueue.toString()`, the key RocketMQ hashes a queue by on the consistent-hash ring:
 * `MessageQueue [topic=TopicTest, brokerName=broker-a, queueId=0]`.
 */
export function messageQueueString(mq: MessageQueue): string {
  return `MessageQueue [topic=${mq.topic}, brokerName=${mq.brokerName}, queueId=${mq.queueId}]`;
}
