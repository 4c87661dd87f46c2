/** Per-instance counters, registered in each app's container and injected into the consumer. */
export class InstanceStats {
  consumed = 0;

  constructor(
    readonly name: string,
    /** Deliveries per sequence key, shared by every instance of the run. */
    readonly deliveries: Map<number, number>,
    /** Messages of other runs (a real cluster keeps old ones) are consumed but not counted. */
    readonly runId: string,
  ) {}

  record(run: string, seq: number): void {
    if (run !== this.runId) return;
    this.consumed++;
    this.deliveries.set(seq, (this.deliveries.get(seq) ?? 0) + 1);
  }
}
