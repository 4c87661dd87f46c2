import { Observable, type OperatorFunction, type Subscription, from } from 'rxjs';

/**
 * Like exhaustMap, but a trigger that arrives while a run is in progress is remembered (once) and runs after it:
 * never two runs at once, and no trigger is lost. This is what a rebalance needs: a membership notice during a
 * rebalance must cause one more pass, not be dropped.
 */
export function coalesceMap<T, R>(project: (value: T) => Promise<R>): OperatorFunction<T, R> {
  return (source) =>
    new Observable<R>((subscriber) => {
      let running = false;
      let pending: { value: T } | undefined;
      let sourceDone = false;
      let inner: Subscription | undefined;
      const run = (value: T): void => {
        running = true;
        inner = from(project(value)).subscribe({
          next: (r) => subscriber.next(r),
          error: (e) => subscriber.error(e),
          complete: () => {
            running = false;
            if (pending) {
              const next = pending.value;
              pending = undefined;
              run(next);
            } else if (sourceDone) subscriber.complete();
          },
        });
      };
      const sub = source.subscribe({
        next: (value) => {
          if (running) pending = { value };
          else run(value);
        },
        error: (e) => subscriber.error(e),
        complete: () => {
          sourceDone = true;
          if (!running) subscriber.complete();
        },
      });
      return () => {
        sub.unsubscribe();
        inner?.unsubscribe();
      };
    });
}
