import { compareJavaStrings, compareMessageQueues, type AllocationStrategy, type MessageQueue } from '@mqkit/core';

/** Queues of one topic, `[broker, count]` per broker, sorted as the runtime sorts them. */
export function queuesOf(topic: string, brokers: readonly (readonly [string, number])[]): MessageQueue[] {
  return brokers
    .flatMap(([brokerName, count]) => Array.from({ length: count }, (_, queueId) => ({ topic, brokerName, queueId })))
    .sort(compareMessageQueues);
}

/** Sorted in Java String order, as the runtime passes cidAll. */
export const javaSorted = (ids: readonly string[]): string[] => [...ids].sort(compareJavaStrings);

export const label = (mq: MessageQueue): string => `${mq.brokerName}#${mq.queueId}`;

/** What every member gets, as `broker#queueId` labels. */
export function allocateAll(
  strategy: AllocationStrategy,
  mqAll: readonly MessageQueue[],
  cidAll: readonly string[],
): Record<string, string[]> {
  return Object.fromEntries(
    cidAll.map((currentCID) => [
      currentCID,
      strategy.allocate({ consumerGroup: 'g', currentCID, mqAll, cidAll }).map(label),
    ]),
  );
}
