import type { EventBus } from '../../events/event-bus';
import { reportError } from '../../events/report-error';
import { mqKey, type MessageQueue } from '../../model/message-queue';
import type { OffsetTable } from './offset-table';

/** How long a released queue's offset is kept in case the queue comes back (a broker outage, a failed commit). */
export const REMEMBER_RELEASED_MS = 10 * 60_000;

interface Released {
  readonly mq: MessageQueue;
  readonly offset: number;
  readonly at: number;
  readonly brokerGone: boolean;
  offered: boolean;
  firstOfferAt?: number;
}

/**
 * ConsumeProgress's memory of queues this member released without the store's acknowledgement, or because their
 * broker left the route (a crashed broker can come back with offsets older than what was consumed, or none at all):
 * for ten minutes a queue taken back starts at least there, and a queue routed again is offered back to the store.
 */
export class ReleasedOffsets {
  readonly #released = new Map<string, Released>();

  constructor(
    private readonly ctx: { readonly group: string; readonly events: EventBus },
    /** ConsumeProgress's table: reads and writes of remembered queues go through it, as every other one. */
    private readonly table: OffsetTable,
  ) {}

  /** Keeps what was consumed of a queue just released. */
  remember(mq: MessageQueue, offset: number, brokerGone: boolean): void {
    this.#released.set(mqKey(mq), { mq, offset, at: Date.now(), brokerGone, offered: false });
  }

  /** Forgets queues (taken again, reset, or allocated to another member, which now owns their progress). */
  forget(mqs: readonly MessageQueue[]): void {
    for (const mq of mqs) this.#released.delete(mqKey(mq));
  }

  /**
   * What this member consumed of a queue it released, or -1. A queue taken again starts there
   * when the store's offset is lower: a member that knows a later committed offset than a restarted broker
   * reports does not move the queue back.
   */
  remembered(mq: MessageQueue): number {
    const entry = this.#released.get(mqKey(mq));
    if (!entry) return -1;
    if (Date.now() - entry.at > REMEMBER_RELEASED_MS) {
      this.#released.delete(mqKey(mq));
      return -1;
    }
    return entry.offset;
  }

  /**
   * Remembered queues routed again: writes what this member consumed back to the store, once, before the queues
   * are allocated, so a member that takes one next reads it rather than what a restarted broker kept. A queue whose
   * broker left the route is written as it is: nobody consumed it while its broker was gone. One whose final
   * commit failed is written only when the store holds less. Every message below such an offset was handled, so
   * writing it loses nothing; a new owner that reads first starts earlier (duplicates, never loss).
   *
   * Resolves false while a failed offer may still be retried: the other members wait `retryForMs` (the route-arrival
   * grace) for it, so the caller allocates nothing yet and comes back soon. After that the offer is given up.
   */
  async offerBack(routed: readonly MessageQueue[], retryForMs = 0): Promise<boolean> {
    let retry = false;
    await Promise.all(
      routed.map(async (mq) => {
        const entry = this.#released.get(mqKey(mq));
        if (!entry || entry.offered || this.remembered(mq) < 0) return;
        const now = Date.now();
        entry.firstOfferAt ??= now;
        try {
          if (entry.brokerGone || (await this.table.read(mq)) < entry.offset) await this.writeBack(mq, entry.offset);
          entry.offered = true;
        } catch (error) {
          reportError(this.ctx, 'offset-offer', error, mq);
          // A broker just back in the route may refuse the write (no connection yet, an error while it starts). The
          // members that take its queues wait the grace for this write, so it is worth trying again until then.
          if (now - entry.firstOfferAt < retryForMs) retry = true;
          else entry.offered = true;
        } finally {
          this.table.remove(mq);
        }
      }),
    );
    return !retry;
  }

  /**
   * Writes a remembered offset and confirms it (see OffsetTable.confirm): a broker back from a crash has no table
   * for the group's topic when the members offer their queues at once, and of two first writes landing together
   * one is lost there, though both were acknowledged.
   */
  private async writeBack(mq: MessageQueue, offset: number): Promise<void> {
    this.table.update(mq, offset, false);
    await this.table.write([mq], true);
    await this.table.confirm(mq, offset);
  }
}
