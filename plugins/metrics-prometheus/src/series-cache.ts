/**
 * Label children per group and topic, made once: prom-client hashes and validates a label set on every
 * `inc(labels)`, and consume and pull events come per handler call and per pull. Two map levels rather than one
 * joined key, so a lookup allocates nothing. Bounded by the groups and topics of the app (no per-message or
 * per-queue key).
 */
export class SeriesCache<T> {
  private readonly byGroup = new Map<string, Map<string, T>>();

  constructor(private readonly make: (group: string, topic: string) => T) {}

  get(group: string, topic: string): T {
    let byTopic = this.byGroup.get(group);
    if (byTopic === undefined) {
      byTopic = new Map();
      this.byGroup.set(group, byTopic);
    }
    let found = byTopic.get(topic);
    if (found === undefined) {
      found = this.make(group, topic);
      byTopic.set(topic, found);
    }
    return found;
  }
}
