import { afterEach, describe, expect, it, vi } from 'vitest';
import { deferred } from './deferred';
import { every } from './periodic';

afterEach(() => vi.useRealTimers());

describe('every', () => {
  it('runs at a fixed rate, skips ticks while a run overlaps them, and ends on abort once idle', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const starts: number[] = [];
    let gate = deferred();
    const t0 = Date.now();
    const done = every(
      100,
      async () => {
        starts.push(Date.now() - t0);
        if (starts.length === 2) await gate.promise;
      },
      controller.signal,
      () => undefined,
    );
    await vi.advanceTimersByTimeAsync(250);
    expect(starts).toEqual([100, 200]);
    // The second run holds for 150 ms: the tick at 300 is skipped, the next is at 400.
    await vi.advanceTimersByTimeAsync(100);
    gate.resolve();
    await vi.advanceTimersByTimeAsync(100);
    expect(starts).toEqual([100, 200, 400]);
    gate = deferred();
    controller.abort();
    await done;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(starts).toHaveLength(3);
  });

  it('hands a rejection to onError and keeps its schedule', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const errors: unknown[] = [];
    let runs = 0;
    const done = every(
      10,
      () => {
        runs++;
        throw new Error(`run ${runs}`);
      },
      controller.signal,
      (e) => errors.push((e as Error).message),
    );
    await vi.advanceTimersByTimeAsync(35);
    controller.abort();
    await done;
    expect(errors).toEqual(['run 1', 'run 2', 'run 3']);
  });
});
