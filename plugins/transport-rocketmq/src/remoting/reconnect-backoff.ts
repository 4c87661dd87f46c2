/** How a dropped connection is re-established. */
export interface ReconnectOptions {
  /** Reconnect by itself after a drop or a failed attempt. Default true. */
  readonly enabled?: boolean;
  /** Delay before the first attempt. Default 100 ms. */
  readonly initialDelayMs?: number;
  /** Cap on the delay. Default 10 s. */
  readonly maxDelayMs?: number;
}

export const RECONNECT_DEFAULTS = { enabled: true, initialDelayMs: 100, maxDelayMs: 10_000 } as const;

/**
 * Exponential back-off with "equal jitter": attempt n (from 1) waits between half and all of
 * min(max, initial · 2^(n−1)). The jitter keeps many clients that lost the same broker from reconnecting in step;
 * the floor of one half keeps the back-off growing.
 */
export function reconnectDelay(attempt: number, options: ReconnectOptions, random: () => number): number {
  const initial = options.initialDelayMs ?? RECONNECT_DEFAULTS.initialDelayMs;
  const max = options.maxDelayMs ?? RECONNECT_DEFAULTS.maxDelayMs;
  const ceiling = Math.min(max, initial * 2 ** Math.min(Math.max(attempt - 1, 0), 30));
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}
