import type { MessageQueue, OffsetWrite } from '@mqkit/core';
import { describe, expect, it } from 'vitest';
import { PersistCoalescer } from './persist-coalescer';

const mq = (queueId: number): MessageQueue => ({ topic: 'T', brokerName: 'b', queueId });
/** Queue `queueId` at `offset` (default: its id). */
const q = (queueId: number, offset = queueId, lowering = false): OffsetWrite => ({ mq: mq(queueId), offset, lowering });

/** A flush the test releases by hand, recording the queue ids each call carried, and its entries. */
function gatedFlush() {
  const calls: number[][] = [];
  const entries: OffsetWrite[][] = [];
  const gates: Array<{ resolve(): void; reject(e: Error): void }> = [];
  const flush = (batch: OffsetWrite[]) =>
    new Promise<void>((resolve, reject) => {
      calls.push(batch.map((e) => e.mq.queueId).sort((a, b) => a - b));
      entries.push(batch);
      gates.push({ resolve, reject });
    });
  return { calls, entries, gates, flush };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('PersistCoalescer', () => {
  it('merges calls of the same tick into one flush, the latest entry of a queue winning', async () => {
    const { calls, entries, gates, flush } = gatedFlush();
    const c = new PersistCoalescer(flush);
    const done = Promise.all([c.request([q(1)]), c.request([q(2), q(1, 9, true)]), c.request([q(3)])]);
    await settle();
    expect(calls).toEqual([[1, 2, 3]]);
    expect(entries[0]!.find((e) => e.mq.queueId === 1)).toEqual(q(1, 9, true));
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

  it('leaves out of the next flush what the one before wrote as it is, but not what moved or failed', async () => {
    const { entries, gates, flush } = gatedFlush();
    const c = new PersistCoalescer(flush);
    const first = c.request([q(1), q(2), q(3)]);
    await settle();
    const second = c.request([q(1), q(2, 7), q(3, 3, true), q(4)]);
    gates[0]!.resolve();
    await first;
    await settle();
    expect(entries[1]).toEqual([q(2, 7), q(3, 3, true), q(4)]);
    const third = c.request([q(4)]);
    gates[1]!.reject(new Error('down'));
    await expect(second).rejects.toThrow('down');
    await settle();
    expect(entries[2]).toEqual([q(4)]);
    gates[2]!.resolve();
    await third;
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
