import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { clockTicksPerSecond, cpuTicks } from './proc-stat';
import { advance, ThreadCpuClock } from './thread-cpu-clock';

describe('thread CPU clock', () => {
  it("adds each thread's growth, a new thread's whole count, and keeps what an ended thread used", () => {
    const last = new Map<number, number>();
    expect(
      advance(
        last,
        new Map([
          [1, 100],
          [2, 50],
        ]),
        true,
      ),
    ).toBe(0);
    expect(
      advance(
        last,
        new Map([
          [1, 130],
          [2, 80],
          [3, 20],
        ]),
        false,
      ),
    ).toBe(30 + 30 + 20);
    // Thread 2 ended: its last reading stays counted, nothing more is added for it.
    expect(
      advance(
        last,
        new Map([
          [1, 140],
          [3, 25],
        ]),
        false,
      ),
    ).toBe(10 + 5);
    expect([...last.keys()]).toEqual([1, 3]);
    // A thread id used again after it ended counts as a new thread.
    expect(
      advance(
        last,
        new Map([
          [1, 140],
          [2, 7],
          [3, 25],
        ]),
        false,
      ),
    ).toBe(7);
  });

  it("agrees with the process's utime + stime within a tick or two, at nanosecond resolution", async () => {
    // A child that burns 300 ms of CPU, says so, and then waits on stdin.
    const child = spawn(
      process.execPath,
      [
        '-e',
        "const t=process.cpuUsage();while(process.cpuUsage(t).user+process.cpuUsage(t).system<300000);console.log('DONE');process.stdin.resume()",
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    try {
      const clock = new ThreadCpuClock(child.pid!);
      const ticksBefore = cpuTicks(child.pid!);
      await new Promise<void>((resolve) =>
        child.stdout!.on('data', (d: Buffer) => d.toString().includes('DONE') && resolve()),
      );
      const ns = clock.read();
      const after = cpuTicks(child.pid!);
      const tickMs = 1000 / clockTicksPerSecond();
      const ticksMs = (after.user + after.system - ticksBefore.user - ticksBefore.system) * tickMs;
      expect(ns / 1e6).toBeGreaterThanOrEqual(250);
      expect(Math.abs(ns / 1e6 - ticksMs)).toBeLessThanOrEqual(2 * tickMs + 5);
      expect(ns % 1e6).not.toBe(0);
    } finally {
      child.kill();
    }
  });
});
