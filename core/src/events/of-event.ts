import { filter, type OperatorFunction } from 'rxjs';
import type { MqkitEvent, MqkitEventName } from './event-map';

/**
 * Keeps the events of the given names, typed by them: after `ofEvent('consumer.error')` the `payload` is that of
 * `consumer.error`; after `ofEvent('consumer.pull', 'consumer.consume')` checking `type` tells which.
 *
 * It filters what `events$` already made: the subscription still listens to every event, so the hot path builds
 * every payload while it is open. For one event, `app.event$(name)` listens to that event alone.
 *
 * @example
 * ```ts
 * app.events$.pipe(ofEvent('consumer.error')).subscribe(({ payload }) => console.warn(payload.where, payload.error));
 * ```
 */
export function ofEvent<K extends MqkitEventName>(type: K, ...more: K[]): OperatorFunction<MqkitEvent, MqkitEvent<K>> {
  const types = new Set<MqkitEventName>([type, ...more]);
  const keep =
    more.length === 0 ? (event: MqkitEvent) => event.type === type : (event: MqkitEvent) => types.has(event.type);
  // What passes has one of the names; TypeScript cannot narrow a union by a generic name, so it is told.
  return filter(keep) as OperatorFunction<MqkitEvent, MqkitEvent<K>>;
}
