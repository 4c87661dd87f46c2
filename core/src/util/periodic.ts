import {
  EMPTY,
  type Observable,
  catchError,
  defer,
  exhaustMap,
  fromEvent,
  interval,
  lastValueFrom,
  of,
  take,
  takeUntil,
} from 'rxjs';

/** Emits once when `signal` aborts (at once when it already has): how a control-plane stream learns to end. */
export function aborted(signal: AbortSignal): Observable<unknown> {
  return signal.aborted ? of(signal.reason) : fromEvent(signal, 'abort').pipe(take(1));
}

/**
 * The control plane's clock: a tick every `intervalMs`, at a fixed rate, until `signal` aborts. Periodic work
 * (persist, lock renewal, heartbeats, the stall watch) is composed on it.
 */
export function ticks(intervalMs: number, signal: AbortSignal): Observable<number> {
  return interval(intervalMs).pipe(takeUntil(aborted(signal)));
}

/**
 * The one helper for periodic work (persist, lock renewal, heartbeats): runs `task` on every tick until `signal`
 * aborts, never two runs at once (`exhaustMap`): a run that overlaps the next tick makes that tick skip, it does not
 * shift the schedule. `task` reports its own failures; a rejection is handed to `onError` and the schedule goes
 * on. Resolves once stopped and idle (a run in progress at the abort finishes first).
 */
export function every(
  intervalMs: number,
  task: () => Promise<void> | void,
  signal: AbortSignal,
  onError: (error: unknown) => void,
): Promise<void> {
  const runs = ticks(intervalMs, signal).pipe(
    exhaustMap(() =>
      defer(async () => task()).pipe(
        catchError((error: unknown) => {
          onError(error);
          return EMPTY;
        }),
      ),
    ),
  );
  return lastValueFrom(runs, { defaultValue: undefined });
}
