import { afterEach, describe, expect, it, vi } from 'vitest';
import { StallWatch } from './stall-watch';

afterEach(() => vi.useRealTimers());

describe('StallWatch', () => {
  it('reports a tick that comes thresholdMs late (the process was frozen), not ordinary ticks', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const stalls: number[] = [];
    const watch = new StallWatch(5_000, (ms) => stalls.push(ms), controller.signal);
    watch.start();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(stalls).toEqual([]);
    // The clock jumps 30 s with no timer run in between: what a SIGSTOP / SIGCONT looks like from inside.
    vi.setSystemTime(Date.now() + 30_000);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(stalls).toHaveLength(1);
    expect(stalls[0]).toBeGreaterThanOrEqual(30_000);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(stalls).toHaveLength(1);
    controller.abort();
    await watch.stopped();
  });
});
