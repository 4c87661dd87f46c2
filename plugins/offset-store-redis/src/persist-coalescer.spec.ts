import type { MessageQueue } from '@mqkit/core';
import { describe, expect, it } from 'vitest';
import { PersistCoalescer } from './persist-coalescer';

const q = (queueId: number): MessageQueue => ({ topic: 'T', brokerName: 'b', queueId });

/** A flush the test releases by hand, recording what each call carried. */
function gatedFlush() {
  const calls: number[][] = [];
  const gates: Array<{ resolve(): void; reject(e: Error): void }> = [];
  const flush = (mqs: MessageQueue[]) =>
    new Promise<void>((resolve, reject) => {
      calls.push(mqs.map((m) => m.queueId).sort((a, b) => a - b));
      gates.push({ resolve, reject });
    });
  return { calls, gates, flush };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('PersistCoalescer', () => {
  it('merges calls of the same tick into one flush', async () => {
    const { calls, gates, flush } = gatedFlush();
    const c = new PersistCoalescer(flush);
    const done = Promise.all([c.request([q(1)]), c.request([q(2), q(1)]), c.request([q(3)])]);
    await settle();
    expect(calls).toEqual([[1, 2, 3]]);
    gates[0]!.resolve();
    await done;
  });

  it('keeps one flush in flight; calls meanwhile share the next one', async () => {
    const { calls, gates, flush } = gatedFlush();
    const c = new PersistCoalescer(flush);
    const first = c.request([q(1)]);
    await settle();
    const second = c.request([q(2)]);
    const third = c.request([q(3)]);
    await settle();
    expect(calls).toEqual([[1]]);
    gates[0]!.resolve();
    await first;
    await settle();
    expect(calls).toEqual([[1], [2, 3]]);
    gates[1]!.resolve();
    await Promise.all([second, third]);
    await c.idle();
  });

  it('rejects exactly the callers of a failed flush, and goes on with the next', async () => {
    const { gates, flush } = gatedFlush();
    const c = new PersistCoalescer(flush);
    const failed = c.request([q(1)]);
    await settle();
    const next = c.request([q(2)]);
    gates[0]!.reject(new Error('down'));
    await expect(failed).rejects.toThrow('down');
    await settle();
    gates[1]!.resolve();
    await expect(next).resolves.toBeUndefined();
  });
});
