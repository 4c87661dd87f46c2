import { deferred, type Deferred } from '../../util/deferred';
import { Fifo } from '../../util/fifo';

/** A unit of work the pool runs; `settled` makes completion idempotent (a timeout may settle it early). */
export interface PoolTask {
  settled: boolean;
}

/**
 * The one concurrency primitive of the consume side: runs tasks with a concurrency limit that starts at `min`,
 * grows by one each time work waits while every slot is busy (up to `max`), and shrinks back towards `min`
 * when a slot finishes with nothing waiting. This is what consumeThreadMin/Max were meant to do in RocketMQ,
 * whose unbounded executor queue means the pool never grows past its core size.
 */
export class ElasticPool<T extends PoolTask> {
  private readonly backlog = new Fifo<T>(256);
  private limit: number;
  private running = 0;
  private peak = 0;
  /** While held, submitted tasks wait in the backlog and none starts (the user's pause). */
  private held = false;
  /** Resolved once a held pool has nothing running (or is released). */
  private drained: Deferred | undefined;
  /** True while pump() starts tasks (see there). */
  private pumping = false;

  /** `worker` runs a task, must call `settle(task)` when it is done (or let a timeout do so), and never rejects. */
  constructor(
    private readonly min: number,
    private readonly max: number,
    private readonly worker: (task: T) => Promise<void> | void,
  ) {
    this.limit = min;
  }

  get inFlight(): number {
    return this.running;
  }
  get peakInFlight(): number {
    return this.peak;
  }
  get queued(): number {
    return this.backlog.size;
  }
  get currentLimit(): number {
    return this.limit;
  }

  /** True between `hold()` and `release()`. */
  get isHeld(): boolean {
    return this.held;
  }

  /**
   * Starts no more tasks until `release()`: what is submitted meanwhile waits in the backlog, in order. Resolves
   * once no task is running any more (at once when none is), or at the release, whichever comes first.
   */
  hold(): Promise<void> {
    this.held = true;
    if (this.running === 0) return Promise.resolve();
    this.drained ??= deferred();
    return this.drained.promise;
  }

  /** Starts what waited while held. */
  release(): void {
    if (!this.held) return;
    this.held = false;
    this.resolveDrained();
    this.pump();
  }

  submit(task: T): void {
    this.backlog.push(task);
    if (this.running >= this.limit && this.limit < this.max) this.limit++;
    this.pump();
  }

  /** Marks a task finished (normally when its worker settles; earlier when it timed out). Idempotent. */
  settle(task: T): void {
    if (task.settled) return;
    task.settled = true;
    this.running--;
    if (this.backlog.size === 0 && this.limit > this.min) this.limit--;
    this.pump();
    if (this.running === 0) this.resolveDrained();
  }

  /** Removes waiting tasks the predicate rejects (for a released queue's not-yet-started work). */
  discard(reject: (task: T) => boolean): void {
    this.backlog.retain((task) => !reject(task));
  }

  private resolveDrained(): void {
    const drained = this.drained;
    this.drained = undefined;
    drained?.resolve();
  }

  private pump(): void {
    // A worker may settle before it returns (a released queue's call, a synchronous handler): its settle() must not
    // start the next task from inside this loop, or a large backlog (a pause's, handed over at once) nests one call
    // per task until the stack overflows. The loop below starts it instead.
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (!this.held && this.running < this.limit && this.backlog.size > 0) {
        const task = this.backlog.shift()!;
        this.running++;
        if (this.running > this.peak) this.peak = this.running;
        // The worker reports completion through settle() itself (hot path: no closures or extra promise per task);
        // it never rejects.
        void this.worker(task);
      }
    } finally {
      this.pumping = false;
    }
  }
}
