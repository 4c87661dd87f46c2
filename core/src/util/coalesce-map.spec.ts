import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { deferred } from './deferred';
import { coalesceMap } from './coalesce-map';

describe('coalesceMap', () => {
  it('never runs two at once and runs once more for triggers that came during a run', async () => {
    const triggers = new Subject<number>();
    const started: number[] = [];
    const gates = [deferred(), deferred(), deferred()];
    let running = 0;
    let maxRunning = 0;
    const results: number[] = [];
    triggers
      .pipe(
        coalesceMap(async (v) => {
          running++;
          maxRunning = Math.max(maxRunning, running);
          started.push(v);
          await gates[started.length - 1]!.promise;
          running--;
          return v;
        }),
      )
      .subscribe((v) => results.push(v));
    triggers.next(1);
    triggers.next(2);
    triggers.next(3); // 2 and 3 coalesce into one pending run, with the latest value
    gates[0]!.resolve();
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([1, 3]);
    gates[1]!.resolve();
    await new Promise((r) => setImmediate(r));
    expect(results).toEqual([1, 3]);
    expect(maxRunning).toBe(1);
  });
});
