import { sleep } from './deferred';

/**
 * The one helper for periodic work (persist, lock renewal, heartbeats): runs `task` every `intervalMs` until
 * `signal` aborts, never two runs at once. Ticks keep a fixed rate, as RxJS `interval` + `exhaustMap` would: a run
 * that overlaps the next tick makes that tick skip, it does not shift the schedule. `task` reports its own
 * failures; a rejection is handed to `onError` and the schedule goes on. Resolves once stopped and idle.
 */
export async function every(
  intervalMs: number,
  task: () => Promise<void> | void,
  signal: AbortSignal,
  onError: (error: unknown) => void,
): Promise<void> {
  let next = Date.now() + intervalMs;
  while (!signal.aborted) {
    await sleep(next - Date.now(), signal);
    if (signal.aborted) return;
    try {
      await task();
    } catch (error) {
      onError(error);
    }
    const now = Date.now();
    next += intervalMs;
    if (next <= now) next += Math.ceil((now - next + 1) / intervalMs) * intervalMs;
  }
}
