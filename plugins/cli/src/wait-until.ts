/** Polls `done` every 100 ms until it holds, the signal aborts, or `timeoutMs` passes (then an error naming it). */
export async function waitUntil(
  done: () => boolean,
  signal: AbortSignal,
  timeoutMs: number,
  message: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (signal.aborted) return;
    if (Date.now() > deadline) throw new Error(message());
    await new Promise<void>((resolve) => setTimeout(resolve, 100));
  }
}
