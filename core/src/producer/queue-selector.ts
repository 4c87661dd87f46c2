import type { MessageQueue } from '../model/message-queue';
import { javaStringHashCode } from '../util/java-hash';
import type { OutgoingMessage } from '../model/outgoing-message';

/**
 * Chooses the queue of an ordered send (RocketMQ's MessageQueueSelector): it gets the topic's publish queues in
 * RocketMQ's order and the message, and returns one of the queues. One attempt, no retry, as in RocketMQ.
 */
export type MessageQueueSelector = (queues: readonly MessageQueue[], message: OutgoingMessage<unknown>) => MessageQueue;

/**
 * RocketMQ's SelectMessageQueueByHash: |hashCode(key)| mod n, with Java's String.hashCode, so a Java producer
 * and mqkit put a key on the same queue. All messages of one key land on one queue while the queue list is stable.
 */
export function selectByHash(key: string): MessageQueueSelector {
  return (queues) => {
    let h = javaStringHashCode(key) % queues.length;
    if (h < 0) h = Math.abs(h);
    return queues[h]!;
  };
}

/** RocketMQ's SelectMessageQueueByRandom. */
export const selectByRandom: MessageQueueSelector = (queues) => queues[Math.floor(Math.random() * queues.length)]!;
