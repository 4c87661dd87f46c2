import { withoutNamespace, wrapNamespace } from '../model/namespace';
import type { MessageQueue } from '../model/message-queue';
import type { SendResult } from '../spi/transport.roles';

/** A queue the application names, as the broker knows it (its topic in the namespace). */
export function wrapQueue(namespace: string | undefined, mq: MessageQueue): MessageQueue {
  return namespace ? { ...mq, topic: wrapNamespace(namespace, mq.topic) } : mq;
}

/** A result as the application sees it: RocketMQ resets its queue's topic without the namespace. */
export function unwrapResult(namespace: string | undefined, result: SendResult): SendResult {
  return namespace
    ? {
        ...result,
        messageQueue: { ...result.messageQueue, topic: withoutNamespace(namespace, result.messageQueue.topic) },
      }
    : result;
}
