import type { MessageQueue } from '../model/message-queue';
import { withoutNamespace, wrapNamespace } from '../model/namespace';

/**
 * The pull consumer's API shows plain names while the broker and the engine know namespaced ones
 * (`<namespace>%<topic>`): every topic and queue crosses here on the way in and on the way out.
 */
export class QueueNames {
  constructor(private readonly namespace: string | undefined) {}

  /** A topic as the broker knows it. */
  topic(name: string): string {
    return wrapNamespace(this.namespace, name);
  }

  /** A queue as the broker knows it (its topic in the namespace). */
  wire(mq: MessageQueue): MessageQueue {
    return { topic: this.topic(mq.topic), brokerName: mq.brokerName, queueId: mq.queueId };
  }

  /** A queue as the application knows it. */
  plain(mq: MessageQueue): MessageQueue {
    return this.namespace ? { ...mq, topic: withoutNamespace(this.namespace, mq.topic) } : mq;
  }
}
