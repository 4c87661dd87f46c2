/** A message's first handling, as one "D" line told it. */
export interface FirstDelivery {
  /** Epoch ms the member handled it at. */
  readonly at: number;
  /** "<broker>/<queueId>". */
  readonly queue: string;
  /** Its offset in that queue. */
  readonly offset: number;
}

/**
 * Order violations among first deliveries, RocketMQ's ORDERLY promise measured from the outside.
 *
 * Definition: take every message's first delivery (its first "D" line, from whichever member), group them by queue
 * (broker/queueId), and walk each queue's first deliveries in handling-time order (equal times keep the order the
 * lines arrived in, which within one member is the order it handled them). A message is one order violation when its
 * queue offset is lower than the highest offset already first-handled on its queue: it was handled for the first
 * time after a later message of its own queue. Each message counts at most once, so a member that overtakes a run
 * of k messages adds k.
 *
 * Not violations: a message handled again after its first delivery (a duplicate, whatever its offset: a member
 * replaying from a committed offset goes back by design), and a message never handled (lost). Both are counted
 * apart. `firsts` must be in arrival order.
 */
export function countOrderViolations(firsts: readonly FirstDelivery[]): number {
  const order = firsts.map((delivery, arrival) => ({ delivery, arrival }));
  order.sort((x, y) => x.delivery.at - y.delivery.at || x.arrival - y.arrival);
  const highest = new Map<string, number>();
  let violations = 0;
  for (const { delivery } of order) {
    const top = highest.get(delivery.queue);
    if (top !== undefined && delivery.offset < top) violations++;
    else highest.set(delivery.queue, delivery.offset);
  }
  return violations;
}

/**
 * Every delivery the members of one run reported, across members: how often each sequence number was handled, when
 * first, and where. Loss and duplicates are counted against the producer's acknowledged set, never against what was
 * delivered; order violations over every first delivery that names its queue offset.
 *
 * A line is "D <seq> <epoch ms>[ <broker>/<queue>[ <queue offset>]]": members before 2026-12 printed no offset
 * (mqkit's) or neither (Java's); such lines count for loss and duplicates, not for order.
 */
export class DeliveryLog {
  private readonly counts = new Map<number, number>();
  private readonly firstAt = new Map<number, number>();
  /** First deliveries that named queue and offset, in arrival order. */
  private readonly firsts: FirstDelivery[] = [];
  /** With tracing on: every delivery as [member, epoch ms, queue], by sequence number. */
  private readonly trail: Map<number, [number, number, string][]> | undefined;

  constructor(options: { trace?: boolean } = {}) {
    this.trail = options.trace ? new Map() : undefined;
  }

  record(line: string, member = -1): void {
    if (!line.startsWith('D ')) return;
    const [, seqText, atText, queue = '', offsetText] = line.split(' ', 5);
    const seq = Number(seqText);
    const at = Number(atText);
    if (!Number.isInteger(seq)) return;
    const count = this.counts.get(seq) ?? 0;
    this.counts.set(seq, count + 1);
    if (count === 0) {
      this.firstAt.set(seq, at);
      const offset = offsetText === undefined ? Number.NaN : Number(offsetText);
      if (queue !== '' && Number.isInteger(offset)) this.firsts.push({ at, queue, offset });
    }
    if (this.trail) {
      const list = this.trail.get(seq);
      if (list) list.push([member, at, queue]);
      else this.trail.set(seq, [[member, at, queue]]);
    }
  }

  /** With tracing on: the deliveries of every message delivered more than once. */
  duplicated(): { seq: number; deliveries: [number, number, string][] }[] {
    return [...(this.trail ?? [])]
      .filter(([, list]) => list.length > 1)
      .map(([seq, deliveries]) => ({ seq, deliveries }));
  }

  get unique(): number {
    return this.counts.size;
  }

  has(seq: number): boolean {
    return this.counts.has(seq);
  }

  /** Acknowledged sequence numbers never delivered. */
  lost(acknowledged: ReadonlySet<number>): number {
    let n = 0;
    for (const seq of acknowledged) if (!this.counts.has(seq)) n++;
    return n;
  }

  /** Deliveries of acknowledged messages beyond the first. */
  duplicates(acknowledged: ReadonlySet<number>): number {
    let n = 0;
    for (const seq of acknowledged) n += Math.max(0, (this.counts.get(seq) ?? 0) - 1);
    return n;
  }

  /** Order violations among the first deliveries (see countOrderViolations). */
  orderViolations(): number {
    return countOrderViolations(this.firsts);
  }

  /** The earliest first delivery of any sequence number at or above `seq` (messages sent after a fault). */
  firstDeliveryFrom(seq: number): number | undefined {
    let first: number | undefined;
    for (const [s, at] of this.firstAt) if (s >= seq && (first === undefined || at < first)) first = at;
    return first;
  }
}
