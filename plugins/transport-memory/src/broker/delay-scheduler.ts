interface Scheduled {
  readonly due: number;
  readonly deliver: () => void;
}

/**
 * RocketMQ's ScheduleMessageService: one FIFO per delay level (every message of a level waits the same time,
 * so FIFO order is due order) and one timer per level. Levels are 1-based; a level above the last is clamped.
 */
export class DelayScheduler {
  private readonly queues: Scheduled[][];
  private readonly timers: (NodeJS.Timeout | undefined)[];
  private closed = false;

  constructor(private readonly levelsMs: readonly number[]) {
    this.queues = levelsMs.map(() => []);
    this.timers = levelsMs.map(() => undefined);
  }

  get levels(): number {
    return this.levelsMs.length;
  }

  /** Clamps a requested level to [1, levels]. */
  clamp(level: number): number {
    return Math.min(Math.max(1, Math.floor(level)), this.levelsMs.length);
  }

  delayOf(level: number): number {
    return this.levelsMs[this.clamp(level) - 1]!;
  }

  schedule(level: number, deliver: () => void, now = Date.now()): number {
    const index = this.clamp(level) - 1;
    const due = now + this.levelsMs[index]!;
    this.queues[index]!.push({ due, deliver });
    if (!this.timers[index]) this.arm(index);
    return due;
  }

  /** Messages waiting, for status and tests. */
  pending(): number {
    return this.queues.reduce((n, q) => n + q.length, 0);
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) if (t) clearTimeout(t);
  }

  private arm(index: number): void {
    const queue = this.queues[index]!;
    if (queue.length === 0 || this.closed) {
      this.timers[index] = undefined;
      return;
    }
    const timer = setTimeout(() => this.fire(index), Math.max(0, queue[0]!.due - Date.now()));
    timer.unref();
    this.timers[index] = timer;
  }

  private fire(index: number): void {
    const queue = this.queues[index]!;
    const now = Date.now();
    let n = 0;
    while (n < queue.length && queue[n]!.due <= now) n++;
    const due = queue.splice(0, n);
    for (const item of due) item.deliver();
    this.arm(index);
  }
}
