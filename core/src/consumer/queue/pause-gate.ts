import { BehaviorSubject, type Observable, distinctUntilChanged, filter, map, take } from 'rxjs';

/** Why pulling is held: the user's pause() and the offset store's backpressure are held apart. */
export type PauseReason = 'user' | 'offset-store';

/**
 * The group's pause, as a stream of the reasons holding it: pulling waits while any reason holds. Reasons are
 * independent, so `resume()` from the user does not cancel a hold the offset store asked for. Not a cancellation:
 * a stop wakes the waiters through the queues' signals.
 */
export class PauseGate {
  readonly #reasons = new BehaviorSubject<ReadonlySet<PauseReason>>(new Set());
  readonly #open$: Observable<void> = this.#reasons.pipe(
    filter((reasons) => reasons.size === 0),
    take(1),
    map(() => undefined),
  );

  /** Whether pulling is held, now and at every change. */
  readonly held$: Observable<boolean> = this.#reasons.pipe(
    map((reasons) => reasons.size > 0),
    distinctUntilChanged(),
  );

  /** True when the reason was not held before (an event is due). */
  hold(reason: PauseReason): boolean {
    const reasons = this.#reasons.value;
    if (reasons.has(reason)) return false;
    this.#reasons.next(new Set([...reasons, reason]));
    return true;
  }

  /** True when the reason was held (an event is due). */
  release(reason: PauseReason): boolean {
    const reasons = this.#reasons.value;
    if (!reasons.has(reason)) return false;
    this.#reasons.next(new Set([...reasons].filter((r) => r !== reason)));
    return true;
  }

  has(reason: PauseReason): boolean {
    return this.#reasons.value.has(reason);
  }

  get isHeld(): boolean {
    return this.#reasons.value.size > 0;
  }

  /** Undefined when pulling may go on (a plain check per pull); otherwise emits once every reason was released. */
  whenOpen(): Observable<void> | undefined {
    return this.isHeld ? this.#open$ : undefined;
  }
}
