import { expect, vi } from 'vitest';

/**
 * Advances fake timers step by step and checks `read()` after each step, so a spec reads as a timeline:
 * `[[0, 1], [25, 2]]` is "at once 1, 25 ms later 2". A failure says how far into the timeline it came, which a
 * run of advance-then-expect lines leaves the reader to add up.
 */
export async function expectTimeline(
  read: () => number,
  steps: ReadonlyArray<readonly [advanceMs: number, expected: number]>,
): Promise<void> {
  let elapsed = 0;
  for (const [ms, expected] of steps) {
    await vi.advanceTimersByTimeAsync(ms);
    elapsed += ms;
    expect(read(), `${elapsed} ms into the timeline`).toBe(expected);
  }
}
