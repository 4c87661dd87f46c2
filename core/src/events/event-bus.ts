import { getOrCreate } from '../util/get-or-create';
import type { MqkitEventName, MqkitEvents, MqkitListener } from './event-map';

/**
 * One typed event stream per app. `on` returns an unsubscribe function. Emitting checks for listeners first,
 * so events on the hot path cost a map lookup when nobody listens. A listener that throws is reported on
 * `listener-error` handlers and never breaks the emitter.
 */
export class EventBus {
  private readonly listeners = new Map<string, Set<(payload: never) => void>>();
  private readonly flags = new Map<string, { listened: boolean }>();

  on<K extends MqkitEventName>(event: K, listener: MqkitListener<K>): () => void {
    const set = getOrCreate(this.listeners, event, () => new Set());
    set.add(listener as (payload: never) => void);
    const flag = this.flags.get(event);
    if (flag) flag.listened = true;
    return () => {
      set.delete(listener as (payload: never) => void);
      if (set.size === 0 && this.listeners.get(event) === set) {
        this.listeners.delete(event);
        if (flag) flag.listened = false;
      }
    };
  }

  /**
   * A live flag saying whether anyone listens to `event`, for the per-message path: reading a property costs less
   * than a map lookup per call.
   */
  listening(event: MqkitEventName): { readonly listened: boolean } {
    return getOrCreate(this.flags, event, () => ({ listened: this.listeners.has(event) }));
  }

  /** True when someone listens; lets hot paths skip building a payload. */
  has(event: MqkitEventName): boolean {
    return this.listeners.has(event);
  }

  emit<K extends MqkitEventName>(event: K, payload: MqkitEvents[K]): void {
    const set = this.listeners.get(event);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        (listener as MqkitListener<K>)(payload);
      } catch (error) {
        // A broken listener must not break consumption; surface it where a process-level handler can see it.
        process.emitWarning(`mqkit: a listener of ${event} threw: ${(error as Error)?.message ?? String(error)}`);
      }
    }
  }
}
