import { describe, expect, it } from 'vitest';
import type { MessageRecord } from '../../model/message';
import { parseSubscription } from '../../model/subscription';
import { ProcessQueue } from './process-queue';
import { ConsumeProgress } from '../progress/consume-progress';
import { MemoryOffsetStore, testGroup } from '../runtime.fixture';

const mq = { topic: 'T', brokerName: 'b', queueId: 0 };

function records(offsets: number[], size = 10): MessageRecord[] {
  return offsets.map((queueOffset) => ({ queueOffset, body: Buffer.alloc(size) }) as unknown as MessageRecord);
}

function put(pq: ProcessQueue, offsets: number[], size = 10): number[] {
  const seqs: number[] = [];
  pq.put(records(offsets, size), (_r, seq) => seqs.push(seq));
  return seqs;
}

function newQueue(parent = new AbortController().signal): ProcessQueue {
  const progress = new ConsumeProgress(testGroup(), new MemoryOffsetStore(), false).begin(mq, 0);
  return new ProcessQueue(mq, parseSubscription('T', '*'), progress, 0, parent);
}

describe('ProcessQueue', () => {
  it('commits the smallest offset still in flight, then last + 1 when empty', () => {
    const pq = newQueue();
    expect(pq.committableOffset()).toBe(-1);
    const seqs = put(pq, [10, 11, 12, 13]);
    expect(pq.committableOffset()).toBe(10);
    pq.remove([seqs[1]!, seqs[2]!]);
    expect(pq.committableOffset()).toBe(10);
    pq.removeOne(seqs[0]!);
    expect(pq.committableOffset()).toBe(13);
    pq.removeOne(seqs[3]!);
    expect(pq.committableOffset()).toBe(14);
  });

  it('counts messages and body bytes, and the offset span', () => {
    const pq = newQueue();
    const seqs = put(pq, [0, 5, 9], 100);
    expect(pq.msgCount).toBe(3);
    expect(pq.msgBytes).toBe(300);
    expect(pq.maxSpan).toBe(9);
    expect(pq.remove([seqs[0]!])).toBe(100);
    expect(pq.maxSpan).toBe(4);
    expect(pq.msgCount).toBe(2);
    expect(pq.msgBytes).toBe(200);
  });

  it('ignores offsets at or below the last one put, and finished messages removed twice', () => {
    const pq = newQueue();
    const seqs = put(pq, [1, 2]);
    expect(put(pq, [2, 3])).toHaveLength(1);
    expect(pq.msgCount).toBe(3);
    expect(pq.removeOne(seqs[0]!)).toBe(10);
    expect(pq.removeOne(seqs[0]!)).toBe(0);
    expect(pq.msgCount).toBe(2);
  });

  it('keeps sequence numbers valid across compaction of a long window', () => {
    const pq = newQueue();
    const seqs = put(
      pq,
      Array.from({ length: 5000 }, (_, i) => i),
    );
    for (let i = 0; i < 4000; i++) pq.removeOne(seqs[i]!);
    expect(pq.committableOffset()).toBe(4000);
    expect(pq.contains(seqs[3999]!)).toBe(false);
    expect(pq.contains(seqs[4000]!)).toBe(true);
    pq.removeOne(seqs[4999]!);
    expect(pq.committableOffset()).toBe(4000);
    for (let i = 4000; i < 4999; i++) pq.removeOne(seqs[i]!);
    expect(pq.committableOffset()).toBe(5000);
    expect(pq.msgCount).toBe(0);
  });

  it('keeps the window in order while it wraps around its ring and grows with unfinished messages in it', () => {
    // A reference model: the unfinished offsets. Batches put, some finished out of order, others left behind, so
    // the window's start moves around the ring and the ring doubles while it is not at slot 0.
    const pq = newQueue();
    const open = new Map<number, number>();
    let offset = 0;
    let widest = 0;
    for (let round = 0; round < 60; round++) {
      const batch = Array.from({ length: 7 + (round % 5) }, () => offset++);
      for (const [i, seq] of put(pq, batch, 1 + (round % 3)).entries()) open.set(seq, batch[i]!);
      const seqs = [...open.keys()];
      // Finish every other message, and the oldest one only every seventh round (a slow message holds the start).
      for (const [i, seq] of seqs.entries()) {
        if (i % 2 === 1 || (i === 0 && round % 7 === 0)) {
          pq.removeOne(seq);
          open.delete(seq);
        }
      }
      widest = Math.max(widest, pq.maxSpan);
      const smallest = Math.min(...open.values());
      expect(pq.committableOffset()).toBe(open.size === 0 ? offset : smallest);
      expect(pq.msgCount).toBe(open.size);
      for (const seq of seqs) expect(pq.contains(seq)).toBe(open.has(seq));
    }
    // The window spanned several times the first ring (16 slots), so it grew, and wrapped in between.
    expect(widest).toBeGreaterThan(64);
    pq.remove([...open.keys()]);
    expect(pq.msgCount).toBe(0);
    expect(pq.msgBytes).toBe(0);
    expect(pq.committableOffset()).toBe(offset);
  });

  it('wakes a flow-controlled waiter only once back under its marks', async () => {
    const pq = newQueue();
    const seqs = put(pq, [0, 1, 2, 3]);
    let woke = false;
    const wait = pq.waitForCapacity({ count: 2, bytes: 1e9, span: 1e9 }).then(() => (woke = true));
    pq.removeOne(seqs[0]!);
    await Promise.resolve();
    expect(woke).toBe(false);
    pq.removeOne(seqs[1]!);
    await wait;
    expect(woke).toBe(true);
  });

  it('clear() drops the cache; late removals of old messages count nothing', () => {
    const pq = newQueue();
    const seqs = put(pq, [0, 1]);
    expect(pq.clear()).toBe(20);
    expect(pq.removeOne(seqs[0]!)).toBe(0);
    expect(pq.msgCount).toBe(0);
  });

  it('abort aborts its signal and releases capacity waiters', async () => {
    const pq = newQueue();
    put(pq, [0, 1]);
    const wait = pq.waitForCapacity({ count: 0, bytes: 0, span: 0 });
    pq.abort();
    await wait;
    expect(pq.signal.aborted).toBe(true);
    expect(pq.active).toBe(false);
    expect(pq.state).toBe('draining');
    pq.drop();
    expect(pq.state).toBe('dropped');
  });

  it('aborts with its group: the parent signal is the root of its cancellation', async () => {
    const group = new AbortController();
    const pq = newQueue(group.signal);
    put(pq, [0, 1]);
    const wait = pq.waitForCapacity({ count: 0, bytes: 0, span: 0 });
    group.abort();
    await wait;
    expect(pq.signal.aborted).toBe(true);
    expect(pq.state).toBe('draining');
    expect(newQueue(group.signal).active).toBe(false);
  });
});
