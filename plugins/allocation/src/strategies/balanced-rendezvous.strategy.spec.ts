import { AllocationError } from '@mqkit/core';
import { describe, expect, it } from 'vitest';
import { pairWeight, stringHash32 } from '../hashing/rendezvous-hash';
import { allocateAll, javaSorted, queuesOf } from './allocation.fixture';
import { AllocateMessageQueueBalancedRendezvous } from './balanced-rendezvous.strategy';

// Golden vectors from an independent Python implementation of the same algorithm. Every member of a group must
// compute the same table, so a change here breaks groups that mix versions: change the name with the algorithm.
describe('AllocateMessageQueueBalancedRendezvous (BALANCED_RENDEZVOUS)', () => {
  const strategy = new AllocateMessageQueueBalancedRendezvous();

  it('hashes with 32-bit integer arithmetic only, the same everywhere', () => {
    expect(stringHash32('cid-0')).toBe(2640382296);
    expect(pairWeight(1, 2)).toBe(332615954);
  });

  it('8 queues over 3 members: 3, 3 and 2, not in blocks', () => {
    expect(allocateAll(strategy, queuesOf('TopicTest', [['broker-a', 8]]), ['cid-0', 'cid-1', 'cid-2'])).toEqual({
      'cid-0': ['broker-a#0', 'broker-a#3', 'broker-a#6'],
      'cid-1': ['broker-a#1', 'broker-a#2', 'broker-a#4'],
      'cid-2': ['broker-a#5', 'broker-a#7'],
    });
  });

  it('two brokers, uneven counts, ids that sort surprisingly and non-ASCII ids', () => {
    const cidAll = javaSorted(['消费者', 'cid-2', 'cid-10', 'çid']);
    expect(
      allocateAll(
        strategy,
        queuesOf('OrderTopic', [
          ['broker-a', 4],
          ['broker-b', 3],
        ]),
        cidAll,
      ),
    ).toEqual({
      'cid-10': ['broker-a#0', 'broker-a#1'],
      'cid-2': ['broker-b#1'],
      çid: ['broker-a#2', 'broker-b#0'],
      消费者: ['broker-a#3', 'broker-b#2'],
    });
  });

  it('more members than queues: one queue each for some, nothing for the rest', () => {
    const cidAll = javaSorted(['cid-0', 'cid-1', 'cid-2', 'cid-10', 'cid-11']);
    expect(allocateAll(strategy, queuesOf('TopicTest', [['broker-a', 3]]), cidAll)).toEqual({
      'cid-0': ['broker-a#0'],
      'cid-1': ['broker-a#2'],
      'cid-10': ['broker-a#1'],
      'cid-11': [],
      'cid-2': [],
    });
  });

  it('counts a duplicated id once, gives a non-member nothing and rejects empty inputs with AllocationError', () => {
    const mqAll = queuesOf('T', [['broker-a', 4]]);
    const once = strategy.allocate({ consumerGroup: 'g', currentCID: 'a', mqAll, cidAll: ['a', 'b'] });
    expect(strategy.allocate({ consumerGroup: 'g', currentCID: 'a', mqAll, cidAll: ['a', 'a', 'b'] })).toEqual(once);
    expect(strategy.allocate({ consumerGroup: 'g', currentCID: 'c', mqAll, cidAll: ['a', 'b'] })).toEqual([]);
    expect(() => strategy.allocate({ consumerGroup: 'g', currentCID: '', mqAll, cidAll: ['a'] })).toThrow(
      AllocationError,
    );
    expect(() => strategy.allocate({ consumerGroup: 'g', currentCID: 'a', mqAll: [], cidAll: ['a'] })).toThrow(
      AllocationError,
    );
    expect(() => strategy.allocate({ consumerGroup: 'g', currentCID: 'a', mqAll, cidAll: [] })).toThrow(
      AllocationError,
    );
  });
});
