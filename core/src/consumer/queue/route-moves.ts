import { mqKey, type MessageQueue } from '../../model/message-queue';

/**
 * When a topic's route last changed while its members did not. The queues that change hands then move because the
 * route did (a broker left or came back), not because a member came or went, and the members see a new route up
 * to a route watch apart: the member that sees it first would take its new share while the old owner, which has
 * not seen it yet, still consumes it, and both would handle the same messages (issue seen on 5.3.3: two members on
 * one queue for about a second after a broker's SIGKILL). A membership change is told to every member by the
 * broker at once, so it starts no such window.
 */
export class RouteMoves {
  readonly #topics = new Map<string, { readonly routes: string; readonly members: string; readonly movedAt: number }>();

  /**
   * Records a pass's view of `topic` (its routed queues and member ids, both sorted) and returns when the route
   * last changed under the same members, or undefined when it did not since the members last changed.
   */
  observe(
    topic: string,
    mqAll: readonly MessageQueue[],
    cidAll: readonly string[],
    now = Date.now(),
  ): number | undefined {
    const routes = mqAll.map(mqKey).join('\n');
    const members = cidAll.join('\n');
    const last = this.#topics.get(topic);
    let movedAt = 0;
    if (last && last.members === members) movedAt = last.routes === routes ? last.movedAt : now;
    this.#topics.set(topic, { routes, members, movedAt });
    return movedAt > 0 ? movedAt : undefined;
  }

  /** Forgets topics no longer subscribed. */
  retain(topics: ReadonlySet<string>): void {
    for (const topic of this.#topics.keys()) if (!topics.has(topic)) this.#topics.delete(topic);
  }
}
