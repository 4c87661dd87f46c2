import { Observable, type Subscriber } from 'rxjs';
import { getOrCreate } from '../util/get-or-create';
import type { MqkitEvent, MqkitEventName, MqkitEvents, MqkitListener } from './event-map';

type EveryListener = (event: MqkitEvent) => void;

/**
 * One typed event stream per app. `on` returns an unsubscribe function; `events$` and `event$(name)` give the same
 * events as RxJS Observables. Emitting checks for listeners first, so events on the hot path cost a map lookup when
 * nobody listens. A listener that throws is reported as a process warning (`process.emitWarning`) and never breaks
 * the emitter or the other listeners.
 */
export class EventBus {
  private readonly listeners = new Map<string, Set<(payload: never) => void>>();
  /** Listeners of every event (the subscriptions of `events$`): while there is one, every event is listened to. */
  private readonly everyListeners = new Set<EveryListener>();
  private readonly flags = new Map<string, { listened: boolean }>();
  /** Completes each open subscription of `events$` and `event$`, at `complete()`. */
  private readonly completers = new Set<() => void>();
  private completed = false;

  /**
   * Every event, as `{ type, payload }` (a {@link MqkitEvent}: checking `type` narrows `payload`; or pipe it through
   * {@link ofEvent}). Each subscription listens to every event until it ends; it completes when the client that owns
   * this bus closes (an app's `stop()`), at once when subscribed after that.
   *
   * While any subscription is open, `has(name)` and `listening(name)` are true for every name, so the hot path builds
   * every payload (`consumer.pull` per pull, `consumer.consume` per handler call, `producer.send` per send), filtered
   * out afterwards or not: a filter such as `ofEvent` runs after the event was made. Unsubscribing restores them.
   * `event$(name)` listens to that one event only.
   */
  readonly events$: Observable<MqkitEvent> = this.observable((subscriber) =>
    this.onEvery((event) => subscriber.next(event)),
  );

  on<K extends MqkitEventName>(event: K, listener: MqkitListener<K>): () => void {
    const set = getOrCreate(this.listeners, event, () => new Set());
    set.add(listener as (payload: never) => void);
    const flag = this.flags.get(event);
    if (flag) flag.listened = true;
    return () => {
      set.delete(listener as (payload: never) => void);
      if (set.size === 0 && this.listeners.get(event) === set) {
        this.listeners.delete(event);
        // Looked up now: the flag may have been made after `on` (a group started after the listener was added).
        const current = this.flags.get(event);
        if (current) current.listened = this.everyListeners.size > 0;
      }
    };
  }

  /**
   * The payloads of one event, as `on(event, listener)` gives them: each subscription is one listener of `event`
   * only, so the hot-path flags of the other events stay as they were (compare `events$`). Completes as `events$`.
   */
  event$<K extends MqkitEventName>(event: K): Observable<MqkitEvents[K]> {
    return this.observable<MqkitEvents[K]>((subscriber) => this.on(event, (payload) => subscriber.next(payload)));
  }

  /**
   * A live flag saying whether anyone listens to `event`, for the per-message path: reading a property costs less
   * than a map lookup per call.
   */
  listening(event: MqkitEventName): { readonly listened: boolean } {
    return getOrCreate(this.flags, event, () => ({ listened: this.has(event) }));
  }

  /** True when someone listens (to `event`, or to every event through `events$`); lets hot paths skip building a payload. */
  has(event: MqkitEventName): boolean {
    return this.everyListeners.size > 0 || this.listeners.has(event);
  }

  emit<K extends MqkitEventName>(event: K, payload: MqkitEvents[K]): void {
    const set = this.listeners.get(event);
    if (set) for (const listener of [...set]) this.call(event, listener as MqkitListener<K>, payload);
    if (this.everyListeners.size === 0) return;
    const envelope = { type: event, payload } as MqkitEvent;
    for (const listener of [...this.everyListeners]) this.call(event, listener, envelope);
  }

  /**
   * Completes every subscription of `events$` and `event$`, and those made later at once; `on` listeners stay.
   * The owning client's close calls it.
   *
   * @internal
   */
  complete(): void {
    if (this.completed) return;
    this.completed = true;
    for (const done of [...this.completers]) done();
  }

  private onEvery(listener: EveryListener): () => void {
    this.everyListeners.add(listener);
    if (this.everyListeners.size === 1) for (const flag of this.flags.values()) flag.listened = true;
    return () => {
      if (!this.everyListeners.delete(listener) || this.everyListeners.size > 0) return;
      for (const [name, flag] of this.flags) flag.listened = this.listeners.has(name);
    };
  }

  /** An Observable whose subscriptions `subscribe` hooks up (returning the unhook), completed by `complete()`. */
  private observable<T>(subscribe: (subscriber: Subscriber<T>) => () => void): Observable<T> {
    return new Observable<T>((subscriber) => {
      if (this.completed) {
        subscriber.complete();
        return;
      }
      const off = subscribe(subscriber);
      const done = () => subscriber.complete();
      this.completers.add(done);
      return () => {
        this.completers.delete(done);
        off();
      };
    });
  }

  private call<T>(event: string, listener: (value: T) => void, value: T): void {
    try {
      listener(value);
    } catch (error) {
      // A broken listener must not break consumption; surface it where a process-level handler can see it.
      process.emitWarning(`mqkit: a listener of ${event} threw: ${(error as Error)?.message ?? String(error)}`);
    }
  }
}
