/**
 * Label children per group and topic, made once: prom-client hashes and validates a label set on every
 * `inc(labels)`, and consume and pull events come per handler call and per pull. Bounded by the groups and topics
 * of the app (no per-message or per-queue key).
 */
export class SeriesCache<T> {
  private readonly series = new Map<string, T>();

  constructor(private readonly make: (group: string, topic: string) => T) {}

  get(group: string, topic: string): T {
    const key = `${group}\u0000${topic}`;
    let found = this.series.get(key);
    if (found === undefined) {
      found = this.make(group, topic);
      this.series.set(key, found);
    }
    return found;
  }
}
