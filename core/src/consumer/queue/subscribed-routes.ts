import { mqKey, type MessageQueue } from '../../model/message-queue';

/** What one lookup of a topic's route changed: it has none now, or has one again after having none. */
export type RouteTransition =
  | { readonly kind: 'missing' }
  | { readonly kind: 'routed'; readonly missingMs: number }
  | undefined;

interface TopicRoutes {
  /** The queues of the first lookup since the topic was subscribed (empty when it had no route then). */
  readonly first: ReadonlySet<string>;
  /** Since when the topic has had no route; undefined while it has one. */
  missingSince: number | undefined;
  /** When the latest lookup ran. */
  lookedUpAt: number;
  /** Queues not in `first`, each with the time of the last lookup that lacked it. */
  readonly late: Map<string, number>;
}

/**
 * What the rebalance has seen of each subscribed topic's route since the topic was subscribed: which topics have no
 * route now, and which queues were not routed at the first lookup.
 *
 * Why the first lookup matters: a queue routed only later (the topic created after the consumer started, or grown)
 * holds nothing older than the subscription, so a group with no offset there reads it from the last lookup that
 * lacked it on (all of it, for a new queue) and misses nothing sent to it. A queue of the first lookup may hold anything (an existing topic), so a new group starts there as
 * consumeFromWhere says. A queue that leaves the route and comes back (its broker crashed) keeps what it was.
 */
export class SubscribedRoutes {
  readonly #topics = new Map<string, TopicRoutes>();

  /** Records one lookup of `topic`'s route; returns the transition it made, once per change. */
  observe(topic: string, mqAll: readonly MessageQueue[], now = Date.now()): RouteTransition {
    const known = this.#topics.get(topic);
    if (!known) {
      this.#topics.set(topic, {
        first: new Set(mqAll.map(mqKey)),
        missingSince: mqAll.length === 0 ? now : undefined,
        lookedUpAt: now,
        late: new Map(),
      });
      return mqAll.length === 0 ? { kind: 'missing' } : undefined;
    }
    for (const mq of mqAll) {
      const key = mqKey(mq);
      if (!known.first.has(key) && !known.late.has(key)) known.late.set(key, known.lookedUpAt);
    }
    known.lookedUpAt = now;
    if (mqAll.length === 0) {
      if (known.missingSince !== undefined) return undefined;
      known.missingSince = now;
      return { kind: 'missing' };
    }
    if (known.missingSince === undefined) return undefined;
    const missingMs = now - known.missingSince;
    known.missingSince = undefined;
    return { kind: 'routed', missingMs };
  }

  /** True when `mq` was not routed at the first lookup of its topic (false for a topic never looked up). */
  routedLate(mq: MessageQueue): boolean {
    const known = this.#topics.get(mq.topic);
    return known !== undefined && !known.first.has(mqKey(mq));
  }

  /**
   * For a queue routed late, when the last lookup that lacked it ran: nothing stored on it before then was sent
   * after this member subscribed and saw it missing. Undefined for a queue of the first lookup.
   */
  lateSince(mq: MessageQueue): number | undefined {
    return this.#topics.get(mq.topic)?.late.get(mqKey(mq));
  }

  /** The topics whose last lookup found no route, in the order they were first looked up. */
  unrouted(): string[] {
    return [...this.#topics].filter(([, t]) => t.missingSince !== undefined).map(([topic]) => topic);
  }

  /** Forgets the topics no longer subscribed: subscribed again, their next lookup is a first one. */
  retain(topics: ReadonlySet<string>): void {
    for (const topic of [...this.#topics.keys()]) if (!topics.has(topic)) this.#topics.delete(topic);
  }
}
