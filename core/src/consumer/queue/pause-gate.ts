import { deferred, type Deferred } from '../../util/deferred';

/** Why pulling is held: the user's pause() and the offset store's backpressure are held apart. */
export type PauseReason = 'user' | 'offset-store';

/**
 * The group's pause: pulling waits while any reason holds it. Reasons are independent, so `resume()` from the
 * user does not cancel a hold the offset store asked for. Not a cancellation: a stop wakes the waiters through
 * the queues' signals.
 */
export class PauseGate {
  private readonly held = new Set<PauseReason>();
  private gate: Deferred | undefined;

  /** True when the reason was not held before (an event is due). */
  hold(reason: PauseReason): boolean {
    if (this.held.has(reason)) return false;
    this.held.add(reason);
    this.gate ??= deferred();
    return true;
  }

  /** True when the reason was held (an event is due). */
  release(reason: PauseReason): boolean {
    if (!this.held.delete(reason)) return false;
    if (this.held.size === 0 && this.gate) {
      this.gate.resolve();
      this.gate = undefined;
    }
    return true;
  }

  has(reason: PauseReason): boolean {
    return this.held.has(reason);
  }

  get isHeld(): boolean {
    return this.held.size > 0;
  }

  /** Undefined when pulling may go on; otherwise resolves when every reason was released. */
  whenOpen(): Promise<void> | undefined {
    return this.gate?.promise;
  }
}
