import { Observable } from 'rxjs';

/** What a step returns: the delay before the next step in ms (0: at once), or STOP. */
export const STOP = -1;

/**
 * A loop as one Observable: runs `step` again and again, each time after the delay the previous one asked for,
 * until a step returns STOP or the subscriber unsubscribes. Unlike `defer(step).pipe(repeat(...))` it allocates
 * nothing per iteration, which matters for a pull loop that runs hundreds of thousands of times a second.
 * `step` must not reject (a rejection ends the loop with an error).
 */
export function repeatSteps(step: () => Promise<number>): Observable<never> {
  return new Observable<never>((subscriber) => {
    let closed = false;
    let timer: NodeJS.Timeout | undefined;
    const onDelay = (): void => {
      timer = undefined;
      next();
    };
    const onStep = (delay: number): void => {
      if (closed) return;
      if (delay === STOP) subscriber.complete();
      else if (delay > 0) timer = setTimeout(onDelay, delay);
      else next();
    };
    const onError = (error: unknown): void => {
      if (!closed) subscriber.error(error);
    };
    const next = (): void => {
      if (!closed) step().then(onStep, onError);
    };
    next();
    return () => {
      closed = true;
      if (timer) clearTimeout(timer);
    };
  });
}
