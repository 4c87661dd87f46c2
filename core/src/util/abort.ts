import { setMaxListeners } from 'node:events';

/**
 * A controller meant to be a parent: a group's signal has one listener per owned queue, far past Node's default
 * warning threshold of 10, so the threshold is lifted.
 */
export function parentController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}

/**
 * An AbortController that aborts with its parent: the cancellation tree app -> group -> queue. Its listener on
 * the parent is removed once it aborts itself, so a released queue leaves nothing behind on the group's signal.
 */
export function childController(parent: AbortSignal): AbortController {
  const child = parentController();
  if (parent.aborted) {
    child.abort(parent.reason);
    return child;
  }
  const follow = (): void => child.abort(parent.reason);
  parent.addEventListener('abort', follow, { once: true });
  child.signal.addEventListener('abort', () => parent.removeEventListener('abort', follow), { once: true });
  return child;
}

/** Resolves when the promise settles or the signal aborts, whichever is first (never rejects). */
export function untilAborted(promise: Promise<unknown>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = (): void => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    promise.then(done, done);
  });
}
