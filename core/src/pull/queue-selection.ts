import { IllegalStateError } from '../errors/state.error';
import { mqKey, type MessageQueue } from '../model/message-queue';
import { parseSubscription, type SubscriptionData } from '../model/subscription';
import type { ProcessQueue } from '../consumer/queue/process-queue';

/** How a pull consumer picks its queues: DefaultLitePullConsumer's SubscriptionType (NONE until the first call). */
export type PullMode = 'none' | 'subscribe' | 'assign';

/**
 * What a pull consumer reads: subscribed topics, whose queues the rebalance allocates, or queues the application
 * assigned, never both (Java refuses to mix them too). Every queue and topic here is a wire one (namespaced).
 */
export class QueueSelection {
  /**
   * By topic, read by the ProcessQueueTable's pulls and by heartbeats. Under `assign` each assigned topic gets a
   * `*` subscription, so the broker filters nothing out of an assigned queue.
   */
  readonly subscriptions = new Map<string, SubscriptionData>();
  private readonly assigned = new Map<string, MessageQueue>();
  private current: PullMode = 'none';

  /** `active` lists the queues the engine pulls now (the rebalance's choice under `subscribe`). */
  constructor(private readonly active: () => readonly ProcessQueue[]) {}

  get mode(): PullMode {
    return this.current;
  }

  /** Fixes the mode at the first subscribe or assign; the other one fails from then on. */
  use(mode: PullMode): void {
    if (this.current !== 'none' && this.current !== mode)
      throw new IllegalStateError(
        `${mode} and ${this.current} are mutually exclusive: this pull consumer already uses ${this.current}`,
      );
    this.current = mode;
  }

  subscribe(subscription: SubscriptionData): void {
    this.subscriptions.set(subscription.topic, subscription);
  }

  unsubscribe(topic: string): void {
    this.subscriptions.delete(topic);
  }

  /**
   * Replaces the assigned queues. Returns each topic assigned before or now with its queues now, so that dropped
   * topics are applied too (with none) and their queues released.
   */
  assign(queues: readonly MessageQueue[]): Array<[topic: string, queues: MessageQueue[]]> {
    const topics = new Set([...this.assigned.values()].map((mq) => mq.topic));
    this.assigned.clear();
    for (const mq of queues) {
      this.assigned.set(mqKey(mq), mq);
      topics.add(mq.topic);
      if (!this.subscriptions.has(mq.topic)) this.subscriptions.set(mq.topic, parseSubscription(mq.topic, '*'));
    }
    for (const topic of [...this.subscriptions.keys()])
      if (![...this.assigned.values()].some((mq) => mq.topic === topic)) this.subscriptions.delete(topic);
    return [...topics].map((topic) => [topic, [...this.assigned.values()].filter((mq) => mq.topic === topic)]);
  }

  /** The queues read now: the assigned ones, or those allocated to this member among its subscriptions. */
  queues(): MessageQueue[] {
    if (this.current === 'assign') return [...this.assigned.values()];
    return this.active().map((pq) => pq.mq);
  }

  /** Under `subscribe` only what the last rebalance allocated counts, not what the next one may. */
  owns(mq: MessageQueue): boolean {
    const key = mqKey(mq);
    return this.current === 'assign' ? this.assigned.has(key) : this.active().some((pq) => pq.key === key);
  }
}
