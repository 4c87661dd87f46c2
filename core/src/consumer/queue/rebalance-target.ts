import type { MessageQueue } from '../../model/message-queue';

/** What the rebalance drives: the consumer's process-queue table. */
export interface RebalanceTarget {
  /** Every subscribed topic, the retry topic included. */
  topics(): readonly string[];
  /**
   * Makes the owned queues of `topic` equal `allocated` (out of `mqAll`, the topic's routed queues): releases the
   * others (drained), adds the new ones. Resolves with whether anything changed and whether every allocated queue
   * is now owned. `routeMovedAt`: when this member saw the route change that moved queues between unchanged
   * members (see RouteMoves); queues another member consumed until then are taken only after the grace.
   */
  applyAllocation(
    topic: string,
    allocated: readonly MessageQueue[],
    mqAll: readonly MessageQueue[],
    routeMovedAt?: number,
  ): Promise<{ changed: boolean; complete: boolean; added: MessageQueue[]; removed: MessageQueue[] }>;
  /**
   * Called with a topic's routed queues before they are allocated: offsets this member can offer back, and, when
   * the route changed (a broker back, a master replaced), this member's progress written to the brokers the route
   * names now, before another member reads it. Resolves false when the topic is not to be allocated yet (an
   * offer to retry): the pass ends unbalanced and is retried after rebalanceRetryMs.
   */
  beforeAllocation(topic: string, mqAll: readonly MessageQueue[], routeChanged: boolean): Promise<boolean>;
  /** Releases queues of topics no longer subscribed. */
  dropUnsubscribed(topics: ReadonlySet<string>): Promise<void>;
  /** Called after a pass that changed a topic's assignment (the messageQueueChanged hook). */
  queuesChanged(topic: string, mqAll: readonly MessageQueue[], allocated: readonly MessageQueue[]): void;
}
