import { UsageError } from './usage-error';

/** `--to TIME`: epoch milliseconds, or an ISO-8601 date-time (`2026-12-01T10:00:00Z`, local time without a zone). */
export function parseTime(text: string, option = '--to'): number {
  if (/^\d+$/.test(text)) {
    const ms = Number(text);
    if (Number.isSafeInteger(ms)) return ms;
  }
  // Date.parse also takes loose forms ("Dec 1"): only ISO-8601 shapes are allowed, so a typo is an error, not a date.
  if (/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(text)) {
    const ms = Date.parse(text);
    if (!Number.isNaN(ms)) return ms;
  }
  throw new UsageError(
    `${option} ${JSON.stringify(text)} is not a time: give epoch milliseconds or ISO-8601, e.g. 2026-12-01T10:00:00Z`,
  );
}

/** An integer option within [min, max]. */
export function parseInteger(text: string, option: string, min: number, max: number): number {
  const n = /^-?\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw new UsageError(`${option} ${JSON.stringify(text)} is not an integer in [${min}, ${max}]`);
  return n;
}

/** `--property k=v`, repeatable. */
export function parseProperty(text: string, previous: Record<string, string> = {}): Record<string, string> {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new UsageError(`--property ${JSON.stringify(text)} is not name=value`);
  return { ...previous, [text.slice(0, eq)]: text.slice(eq + 1) };
}
