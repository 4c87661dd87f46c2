import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { runVariant, type PipelineVariant } from './pipeline-variants';

const settings = (variant: PipelineVariant, windowSec: number) => ({
  variant,
  messages: 20_000,
  size: 10,
  observe: [],
  warmups: 1,
  windowSec,
});

describe('pipeline variants', () => {
  it.each(['batch', 'one', 'ceiling-batch', 'ceiling-one'] as const)(
    '%s: timed passes over the backlog until their steady windows reach the target, pooled',
    async (variant) => {
      const r = await runVariant(settings(variant, 0.05));
      // Every pass read the whole backlog (a short pass throws), and passes went on until 50 ms of window.
      expect(r.steadyWindowMs).toBeGreaterThanOrEqual(50);
      expect(r.passes).toBeGreaterThanOrEqual(1);
      expect(r.steadyMsgsPerSec).toBeGreaterThan(0);
      // Pooled steady messages are 80 % of each pass's backlog: their rate times the window is close to that.
      const steadyMessages = (r.steadyMsgsPerSec * r.steadyWindowMs) / 1000;
      expect(Math.abs(steadyMessages - r.passes * 16_000) / (r.passes * 16_000)).toBeLessThan(0.05);
    },
  );
});
