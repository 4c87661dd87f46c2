/**
 * Every delivery the members of one run reported ("D <seq> <epoch ms>" lines), across members: how often each
 * sequence number was handled and when first. Loss and duplicates are counted against the producer's
 * acknowledged set, never against what was delivered.
 */
export class DeliveryLog {
  private readonly counts = new Map<number, number>();
  private readonly firstAt = new Map<number, number>();
  /** With tracing on: every delivery as [member, epoch ms], by sequence number. */
  private readonly trail: Map<number, [number, number, string][]> | undefined;

  constructor(options: { trace?: boolean } = {}) {
    this.trail = options.trace ? new Map() : undefined;
  }

  record(line: string, member = -1): void {
    if (!line.startsWith('D ')) return;
    // "D <seq> <epoch ms>[ <queue>]"
    const [, seqText, atText] = line.split(' ', 3);
    const seq = Number(seqText);
    const at = Number(atText);
    if (!Number.isInteger(seq)) return;
    this.counts.set(seq, (this.counts.get(seq) ?? 0) + 1);
    if (!this.firstAt.has(seq)) this.firstAt.set(seq, at);
    if (this.trail) {
      const queue = line.split(' ')[3] ?? '';
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

  /** The earliest first delivery of any sequence number at or above `seq` (messages sent after a fault). */
  firstDeliveryFrom(seq: number): number | undefined {
    let first: number | undefined;
    for (const [s, at] of this.firstAt) if (s >= seq && (first === undefined || at < first)) first = at;
    return first;
  }
}
