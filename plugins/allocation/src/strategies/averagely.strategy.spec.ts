import { AllocateMessageQueueAveragely as CoreAveragely } from '@mqkit/core';
import { describe, expect, it } from 'vitest';
import { AllocateMessageQueueAveragely } from '../index';
import { allocateAll, javaSorted, queuesOf } from './allocation.fixture';

// AVG is core's class; this package re-exports it and pins its RocketMQ vectors next to the other five.
describe('AllocateMessageQueueAveragely (AVG), re-exported from core', () => {
  const strategy = new AllocateMessageQueueAveragely();

  it("is the same class as core's, not a copy", () => {
    expect(AllocateMessageQueueAveragely).toBe(CoreAveragely);
    expect(strategy.name).toBe('AVG');
  });

  it('worked example: 8 queues over 3 members give [0 1 2] [3 4 5] [6 7]', () => {
    expect(allocateAll(strategy, queuesOf('T', [['broker-a', 8]]), ['c0', 'c1', 'c2'])).toEqual({
      c0: ['broker-a#0', 'broker-a#1', 'broker-a#2'],
      c1: ['broker-a#3', 'broker-a#4', 'broker-a#5'],
      c2: ['broker-a#6', 'broker-a#7'],
    });
  });

  it('10 over 4: [0 1 2] [3 4 5] [6 7] [8 9]; 3 over 5: one each for the first three', () => {
    const ten = allocateAll(strategy, queuesOf('T', [['broker-a', 10]]), ['c0', 'c1', 'c2', 'c3']);
    expect(Object.values(ten).map((l) => l.length)).toEqual([3, 3, 2, 2]);
    expect(ten.c3).toEqual(['broker-a#8', 'broker-a#9']);
    expect(allocateAll(strategy, queuesOf('T', [['broker-a', 3]]), ['c0', 'c1', 'c2', 'c3', 'c4'])).toEqual({
      c0: ['broker-a#0'],
      c1: ['broker-a#1'],
      c2: ['broker-a#2'],
      c3: [],
      c4: [],
    });
  });

  it('contiguous blocks across brokers; the position follows Java order (cid-10 before cid-2)', () => {
    const cidAll = javaSorted(['cid-2', 'cid-10']);
    const got = allocateAll(
      strategy,
      queuesOf('T', [
        ['broker-b', 2],
        ['broker-a', 3],
      ]),
      cidAll,
    );
    expect(got).toEqual({
      'cid-10': ['broker-a#0', 'broker-a#1', 'broker-a#2'],
      'cid-2': ['broker-b#0', 'broker-b#1'],
    });
  });
});
