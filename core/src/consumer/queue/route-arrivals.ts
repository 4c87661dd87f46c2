import { mqKey, type MessageQueue } from '../../model/message-queue';

/**
 * When each queue of a topic appeared in the route this member sees. The queues of the member's first non-empty
 * route count as always there; a queue routed later (its broker back after a crash, a broker added, the topic
 * grown) is "arriving" until it has been routed for the grace period.
 *
 * Why: the members that owned a returning broker's queues write what they consumed back to it (see
 * ConsumeProgress.offerBack) as soon as they see it in the route; a restarted broker's own offsets are up to one
 * flush (5 s) old. A member that takes such a queue before that write reads the old offset and replays what was
 * consumed. The members see the route at different moments, up to a route watch apart, so the grace lets the
 * offers land first.
 */
export class RouteArrivals {
  private readonly topics = new Map<string, Map<string, number>>();

  /** Records `mqAll` as the topic's routed queues and returns the keys routed for less than `graceMs`. */
  observe(topic: string, mqAll: readonly MessageQueue[], graceMs: number, now = Date.now()): ReadonlySet<string> {
    const known = this.topics.get(topic);
    const next = new Map<string, number>();
    const arriving = new Set<string>();
    for (const mq of mqAll) {
      const key = mqKey(mq);
      const since = known ? (known.get(key) ?? now) : Number.NEGATIVE_INFINITY;
      next.set(key, since);
      if (now - since < graceMs) arriving.add(key);
    }
    // A queue that leaves the route arrives again when it comes back.
    if (mqAll.length > 0 || known) this.topics.set(topic, next);
    return arriving;
  }
}
