import { describe, expect, it } from 'vitest';
import { STOP, repeatSteps } from './repeat-steps';

describe('repeatSteps', () => {
  it('runs steps with the delays they ask for until STOP', async () => {
    const delays = [0, 5, 0, STOP];
    const at: number[] = [];
    const t0 = Date.now();
    await new Promise<void>((done) =>
      repeatSteps(async () => {
        at.push(Date.now() - t0);
        return delays.shift()!;
      }).subscribe({ complete: done }),
    );
    expect(at).toHaveLength(4);
    expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(4);
  });

  it('stops on unsubscribe, also during a delay', async () => {
    let steps = 0;
    const sub = repeatSteps(async () => {
      steps++;
      return 20;
    }).subscribe();
    await new Promise((r) => setTimeout(r, 5));
    sub.unsubscribe();
    await new Promise((r) => setTimeout(r, 50));
    expect(steps).toBe(1);
  });

  it('a rejected step ends the loop with its error', async () => {
    const error = await new Promise((resolve) =>
      repeatSteps(async () => {
        throw new Error('boom');
      }).subscribe({ error: resolve }),
    );
    expect((error as Error).message).toBe('boom');
  });
});
