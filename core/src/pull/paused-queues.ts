/**
 * The queues the application paused, by mqKey. A paused queue's pull loop parks on `whenResumed` instead of polling
 * a flag, so a resume restarts its pulls at once; what it had buffered stays in place for the next poll.
 */
export class PausedQueues {
  private readonly keys = new Set<string>();
  private readonly waiters = new Map<string, Array<() => void>>();

  /** True while at least one queue is paused (running info's `paused`). */
  get any(): boolean {
    return this.keys.size > 0;
  }

  has(key: string): boolean {
    return this.keys.has(key);
  }

  pause(key: string): void {
    this.keys.add(key);
  }

  resume(key: string): void {
    this.keys.delete(key);
    for (const wake of this.waiters.get(key) ?? []) wake();
    this.waiters.delete(key);
  }

  /** Undefined when the queue may pull; else resolves at its resume (the ProcessQueueTable's `whenRunning`). */
  whenResumed(key: string): Promise<void> | undefined {
    if (!this.keys.has(key)) return undefined;
    return new Promise((resolve) => {
      const list = this.waiters.get(key) ?? [];
      list.push(resolve);
      this.waiters.set(key, list);
    });
  }
}
