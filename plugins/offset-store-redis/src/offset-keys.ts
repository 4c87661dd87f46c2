import type { MessageQueue } from '@mqkit/core';

/**
 * The Redis hash holding a group's offsets for one topic: `<prefix>{<group>}:<topic>`. The braces make the group
 * the Redis Cluster hash tag, so every topic of a group (its `%RETRY%<group>` topic included) lives in one slot
 * and one flush is one script call on one node. RocketMQ group names cannot contain braces.
 */
export function offsetKeyOf(prefix: string, group: string, topic: string): string {
  return `${prefix}{${group}}:${topic}`;
}

/** The hash field of one queue: `<brokerName>:<queueId>`, e.g. `broker-a:3`. */
export function offsetFieldOf(mq: MessageQueue): string {
  return `${mq.brokerName}:${mq.queueId}`;
}

/**
 * A stored offset as a number, or undefined when it is not one: only a plain non-negative decimal integer of at
 * most 2^53 - 1 counts (no sign, exponent, spaces or hex, which `Number()` would accept).
 */
export function parseStoredOffset(value: string): number | undefined {
  if (!/^\d{1,16}$/.test(value)) return undefined;
  const offset = Number(value);
  return Number.isSafeInteger(offset) ? offset : undefined;
}
