export interface WaitForOptions {
  /** Give up after this long (default 10 s). */
  readonly timeoutMs?: number;
  /** Check this often (default 10 ms). */
  readonly intervalMs?: number;
  /** Says what was awaited, in the timeout error. */
  readonly message?: string | (() => string);
}

/**
 * Resolves with the first truthy value of `check` (sync or async); rejects after timeoutMs, with the last
 * thrown error or value in the message. Tests wait for conditions, never for fixed sleeps.
 */
export async function waitFor<T>(check: () => T | Promise<T>, options: WaitForOptions = {}): Promise<NonNullable<T>> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const intervalMs = options.intervalMs ?? 10;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as NonNullable<T>;
      last = value;
    } catch (error) {
      last = error;
    }
    if (Date.now() >= deadline) {
      const what = typeof options.message === 'function' ? options.message() : (options.message ?? 'condition');
      const detail = last instanceof Error ? last.message : JSON.stringify(last);
      throw new Error(`waitFor timed out after ${timeoutMs} ms: ${what} (last: ${detail})`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
