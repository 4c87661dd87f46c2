import { AllocationError } from '@mqkit/core';
import { describe, expect, it } from 'vitest';
import { allocateAll, javaSorted, queuesOf } from './allocation.fixture';
import { AllocateMessageQueueAveragelyByCircle } from './averagely-by-circle.strategy';

const strategy = new AllocateMessageQueueAveragelyByCircle();

describe('AllocateMessageQueueAveragelyByCircle (AVG_BY_CIRCLE)', () => {
  it('is named as in RocketMQ', () => expect(strategy.name).toBe('AVG_BY_CIRCLE'));

  it('deals the worked example round robin: 8 queues over 3 members', () => {
    const mqAll = queuesOf('T', [['broker-a', 8]]);
    expect(allocateAll(strategy, mqAll, ['c0', 'c1', 'c2'])).toEqual({
      c0: ['broker-a#0', 'broker-a#3', 'broker-a#6'],
      c1: ['broker-a#1', 'broker-a#4', 'broker-a#7'],
      c2: ['broker-a#2', 'broker-a#5'],
    });
  });

  it('10 queues over 4 members: [0,4,8] [1,5,9] [2,6] [3,7]', () => {
    const got = allocateAll(strategy, queuesOf('T', [['broker-a', 10]]), ['c0', 'c1', 'c2', 'c3']);
    expect(Object.values(got).map((l) => l.map((x) => Number(x.split('#')[1])))).toEqual([
      [0, 4, 8],
      [1, 5, 9],
      [2, 6],
      [3, 7],
    ]);
  });

  it('deals across brokers in sorted queue order, uneven counts', () => {
    const mqAll = queuesOf('T', [
      ['broker-b', 2],
      ['broker-a', 3],
    ]);
    expect(allocateAll(strategy, mqAll, ['c0', 'c1'])).toEqual({
      c0: ['broker-a#0', 'broker-a#2', 'broker-b#1'],
      c1: ['broker-a#1', 'broker-b#0'],
    });
  });

  it('uses the position in Java order: cid-10 sorts before cid-2, non-ASCII ids after ASCII', () => {
    const cidAll = javaSorted(['cid-2', 'cid-10', '消费者', 'cid-1']);
    expect(cidAll).toEqual(['cid-1', 'cid-10', 'cid-2', '消费者']);
    const got = allocateAll(strategy, queuesOf('T', [['broker-a', 6]]), cidAll);
    expect(got).toEqual({
      'cid-1': ['broker-a#0', 'broker-a#4'],
      'cid-10': ['broker-a#1', 'broker-a#5'],
      'cid-2': ['broker-a#2'],
      消费者: ['broker-a#3'],
    });
  });

  it('more members than queues: the first ones get one each, the rest nothing', () => {
    expect(allocateAll(strategy, queuesOf('T', [['broker-a', 3]]), ['c0', 'c1', 'c2', 'c3', 'c4'])).toEqual({
      c0: ['broker-a#0'],
      c1: ['broker-a#1'],
      c2: ['broker-a#2'],
      c3: [],
      c4: [],
    });
  });

  it('gives an id that is not in the list nothing and rejects empty inputs with AllocationError', () => {
    const mqAll = queuesOf('T', [['broker-a', 2]]);
    expect(strategy.allocate({ consumerGroup: 'g', currentCID: 'stranger', mqAll, cidAll: ['c0'] })).toEqual([]);
    expect(() => strategy.allocate({ consumerGroup: 'g', currentCID: '', mqAll, cidAll: ['c0'] })).toThrow(
      AllocationError,
    );
    expect(() => strategy.allocate({ consumerGroup: 'g', currentCID: 'c0', mqAll: [], cidAll: ['c0'] })).toThrow(
      AllocationError,
    );
    expect(() => strategy.allocate({ consumerGroup: 'g', currentCID: 'c0', mqAll, cidAll: [] })).toThrow(
      AllocationError,
    );
  });
});
