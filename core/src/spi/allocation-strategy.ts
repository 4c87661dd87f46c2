import type { MessageQueue } from '../model/message-queue';

export interface AllocationInput {
  readonly consumerGroup: string;
  readonly currentCID: string;
  /** Every queue of the topic, sorted as RocketMQ sorts them (topic, brokerName, queueId). */
  readonly mqAll: readonly MessageQueue[];
  /** Every member's client id, sorted in Java String order. */
  readonly cidAll: readonly string[];
}

/**
 * RocketMQ's AllocateMessageQueueStrategy: every member runs the same strategy on the same sorted inputs and keeps
 * what it returns for its own id. Synchronous and deterministic; throws AllocationError on input Java rejects.
 */
export interface AllocationStrategy {
  /** RocketMQ's getName(), e.g. "AVG", "AVG_BY_CIRCLE". */
  readonly name: string;
  allocate(input: AllocationInput): MessageQueue[];
}

/** A strategy option: a registered name, an instance, or a class with a no-argument constructor. */
export type StrategyOption = string | AllocationStrategy | (new () => AllocationStrategy);
