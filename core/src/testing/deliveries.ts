/**
 * Every delivery of a test's messages by sequence number, across the consumers that record into it: how often
 * each was handled, which never were, how many came twice. Pair it with {@link sendSeqs}, whose messages carry
 * `{ seq }`.
 *
 * @example
 * ```ts
 * const seen = new Deliveries();
 * // in the handler: seen.record(message.payload.seq)
 * await waitFor(() => seen.unique === 100);
 * expect(seen.missing(100)).toEqual([]);
 * ```
 */
export class Deliveries {
  /** How often each sequence number was handled. */
  readonly counts = new Map<number, number>();
  /** Every delivery, duplicates included. */
  total = 0;

  /** Counts one delivery of `seq`. */
  record(seq: number): void {
    this.total++;
    this.counts.set(seq, (this.counts.get(seq) ?? 0) + 1);
  }

  /** How many sequence numbers were handled at least once. */
  get unique(): number {
    return this.counts.size;
  }

  /** Deliveries past the first of each sequence number. */
  get duplicates(): number {
    return this.total - this.counts.size;
  }

  /** The sequence numbers in [0, n) never handled, in order. */
  missing(n: number): number[] {
    const out: number[] = [];
    for (let i = 0; i < n; i++) if (!this.counts.has(i)) out.push(i);
    return out;
  }
}
