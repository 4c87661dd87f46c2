import type { MessageQueue, OffsetWrite } from '@mqkit/core';
import { describe, expect, it } from 'vitest';
import { OutageBackpressure } from './outage-backpressure';

const mq = (queueId: number): MessageQueue => ({ topic: 'T', brokerName: 'b', queueId });
const at = (queueId: number, offset: number, lowering = false): OffsetWrite => ({ mq: mq(queueId), offset, lowering });

describe('OutageBackpressure', () => {
  it('counts failed progress from what Redis holds, across failed flushes, and pauses past the limit', () => {
    const b = new OutageBackpressure(100);
    const signals: boolean[] = [];
    b.watch((paused) => signals.push(paused));
    b.stored(mq(0), 1_000);
    b.succeeded([at(1, 0)]);
    b.failed([at(0, 1_060)]);
    expect([b.total(), signals]).toEqual([60, []]);
    b.failed([at(0, 1_070), at(1, 31)]);
    expect([b.total(), signals]).toEqual([101, [true]]);
    b.succeeded([at(0, 1_070), at(1, 31)]);
    expect([b.total(), signals, b.isPaused]).toEqual([0, [true, false], false]);
  });

  it('counts a queue Redis never had from its first failed offset, and progress after a reset from the reset', () => {
    const b = new OutageBackpressure(50);
    b.failed([at(0, 500)]);
    b.failed([at(0, 540)]);
    expect(b.total()).toBe(40);
    b.failed([at(0, 10, true)]);
    b.failed([at(0, 30)]);
    expect(b.total()).toBe(20);
  });

  it('keeps nothing and never pauses without a limit', () => {
    const b = new OutageBackpressure(Number.POSITIVE_INFINITY);
    b.stored(mq(0), 0);
    b.failed([at(0, 1_000_000)]);
    expect([b.total(), b.isPaused]).toEqual([0, false]);
  });
});
