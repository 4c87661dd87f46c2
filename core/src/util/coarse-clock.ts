/**
 * Date.now() to a tenth of a second, read as a plain variable: for timestamps taken on every handler call
 * (`lastConsumeTimestamp`), where Date.now() itself costs a measurable share of a message's time. One unref'd
 * timer per process, started on first use.
 */
let now = Date.now();
let timer: NodeJS.Timeout | undefined;

export function coarseNow(): number {
  if (!timer) {
    timer = setInterval(() => {
      now = Date.now();
    }, 100);
    timer.unref();
    now = Date.now();
  }
  return now;
}
