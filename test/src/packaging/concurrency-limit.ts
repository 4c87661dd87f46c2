/**
 * A limiter: at most `max` tasks run at once, the others start in call order as running ones settle. The
 * installs share two cores with everything else on the box.
 */
export function concurrencyLimit(max: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  // A settled task hands its slot straight to the next waiter, so a new caller cannot take it in between.
  const release = (): void => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running < max) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      release();
    }
  };
}
