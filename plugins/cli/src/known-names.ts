import { BrokerError, retryTopicOf, type Admin } from '@mqkit/core';
import { UsageError } from './usage-error';

/**
 * Rejects with a UsageError (exit 2) naming the topic when the name server has no route for it (RocketMQ's
 * TOPIC_NOT_EXIST): a mistyped topic is the caller's mistake, and `tail` must not wait for messages that cannot come.
 */
export async function requireTopic(admin: Admin, topic: string): Promise<void> {
  if (!(await routed(admin, topic)))
    throw new UsageError(`unknown topic ${topic}: the name server has no route for it (mqkit topic create makes one)`);
}

/**
 * Rejects with a UsageError (exit 2) naming the group when no broker knows it. A broker answers GET_CONSUME_STATS of
 * a group it never saw with an empty offset table, as it answers a group that has committed nothing yet; what tells
 * them apart is the group's `%RETRY%` topic, which a broker creates when a member of the group first heartbeats.
 * mqadmin's consumerProgress looks that route up first and fails the same way.
 */
export async function requireGroup(admin: Admin, group: string): Promise<void> {
  if (!(await routed(admin, retryTopicOf(group))))
    throw new UsageError(
      `unknown consumer group ${group}: no broker knows it (no member of it has ever connected, so ${retryTopicOf(group)} has no route)`,
    );
}

async function routed(admin: Admin, topic: string): Promise<boolean> {
  try {
    await admin.topicStats(topic);
    return true;
  } catch (error) {
    if (error instanceof BrokerError && error.kind === 'topic-not-found') return false;
    throw error;
  }
}
