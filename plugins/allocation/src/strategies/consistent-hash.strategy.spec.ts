import { AllocationError, ConfigurationError } from '@mqkit/core';
import { describe, expect, it } from 'vitest';
import { md5Hash } from '../hashing/md5-hash';
import { messageQueueString } from '../hashing/message-queue-string';
import { allocateAll, javaSorted, queuesOf } from './allocation.fixture';
import { AllocateMessageQueueConsistentHash } from './consistent-hash.strategy';

// Expected values come from an independent Python implementation of RocketMQ's ConsistentHashRouter
// (hashlib.md5 over UTF-8, TreeMap ceiling with wrap-around), not from this code.
describe('AllocateMessageQueueConsistentHash (CONSISTENT_HASH)', () => {
  it('is named as in RocketMQ and defaults to 10 virtual nodes', () => {
    const strategy = new AllocateMessageQueueConsistentHash();
    expect(strategy.name).toBe('CONSISTENT_HASH');
    expect(strategy.virtualNodeCnt).toBe(10);
  });

  it('hashes like Java: MD5 of the UTF-8 bytes, first 4 bytes unsigned big-endian, keys from MessageQueue.toString()', () => {
    expect(md5Hash('cid-0-0')).toBe(395700724);
    expect(messageQueueString({ topic: 'TopicTest', brokerName: 'broker-a', queueId: 0 })).toBe(
      'MessageQueue [topic=TopicTest, brokerName=broker-a, queueId=0]',
    );
    expect(md5Hash('MessageQueue [topic=TopicTest, brokerName=broker-a, queueId=0]')).toBe(1987926524);
    // Java's getBytes turns an unpaired surrogate into '?'; Node's encoder would write U+FFFD.
    expect(md5Hash('x\uD800')).toBe(md5Hash('x?'));
    expect(md5Hash('x?')).toBe(3661139205);
  });

  it('matches the reference vector: 8 queues, cid-0..2', () => {
    const mqAll = queuesOf('TopicTest', [['broker-a', 8]]);
    const strategy = new AllocateMessageQueueConsistentHash();
    expect(allocateAll(strategy, mqAll, ['cid-0', 'cid-1', 'cid-2'])).toEqual({
      'cid-0': ['broker-a#1', 'broker-a#7'],
      'cid-1': ['broker-a#0', 'broker-a#3', 'broker-a#4', 'broker-a#5', 'broker-a#6'],
      'cid-2': ['broker-a#2'],
    });
    // When cid-2 leaves only its queue moves.
    expect(allocateAll(strategy, mqAll, ['cid-0', 'cid-1'])).toEqual({
      'cid-0': ['broker-a#1', 'broker-a#2', 'broker-a#7'],
      'cid-1': ['broker-a#0', 'broker-a#3', 'broker-a#4', 'broker-a#5', 'broker-a#6'],
    });
  });

  it('two brokers, uneven counts, ids that sort surprisingly and non-ASCII ids', () => {
    const cidAll = javaSorted(['消费者', 'cid-2', 'cid-10', 'çid']);
    expect(cidAll).toEqual(['cid-10', 'cid-2', 'çid', '消费者']);
    const got = allocateAll(
      new AllocateMessageQueueConsistentHash(),
      queuesOf('OrderTopic', [
        ['broker-a', 4],
        ['broker-b', 3],
      ]),
      cidAll,
    );
    expect(got).toEqual({
      'cid-10': ['broker-a#2', 'broker-a#3'],
      'cid-2': ['broker-a#0'],
      çid: ['broker-b#0', 'broker-b#1', 'broker-b#2'],
      消费者: ['broker-a#1'],
    });
  });

  it('routes with a custom hash function: first node at or after the key, wrapping to the first', () => {
    const table: Record<string, number> = { 'a-0': 100, 'b-0': 200 };
    const hash = (key: string) => table[key] ?? Number(/queueId=(\d+)/.exec(key)![1]) * 50 + 50; // queue i -> 50, 100, 150, 200, 250
    const got = allocateAll(new AllocateMessageQueueConsistentHash(1, hash), queuesOf('T', [['broker-a', 5]]), [
      'a',
      'b',
    ]);
    expect(got).toEqual({ a: ['broker-a#0', 'broker-a#1', 'broker-a#4'], b: ['broker-a#2', 'broker-a#3'] });
  });

  it('on a hash collision the later virtual node wins (TreeMap.put), nodes added in cidAll order', () => {
    const got = allocateAll(new AllocateMessageQueueConsistentHash(1, () => 7), queuesOf('T', [['broker-a', 3]]), [
      'a',
      'b',
    ]);
    expect(got).toEqual({ a: [], b: ['broker-a#0', 'broker-a#1', 'broker-a#2'] });
  });

  it('with 0 virtual nodes the ring is empty and nobody gets anything; a negative count is a ConfigurationError', () => {
    expect(
      allocateAll(new AllocateMessageQueueConsistentHash(0), queuesOf('T', [['broker-a', 3]]), ['a', 'b']),
    ).toEqual({ a: [], b: [] });
    expect(() => new AllocateMessageQueueConsistentHash(-1)).toThrow(ConfigurationError);
  });

  it('gives a non-member nothing and rejects empty inputs with AllocationError', () => {
    const strategy = new AllocateMessageQueueConsistentHash();
    const mqAll = queuesOf('T', [['broker-a', 2]]);
    expect(strategy.allocate({ consumerGroup: 'g', currentCID: 'x', mqAll, cidAll: ['a'] })).toEqual([]);
    expect(() => strategy.allocate({ consumerGroup: 'g', currentCID: 'a', mqAll: [], cidAll: ['a'] })).toThrow(
      AllocationError,
    );
  });

  it('more members than queues: some get nothing, every queue has one owner', () => {
    const mqAll = queuesOf('T', [
      ['broker-a', 2],
      ['broker-b', 1],
    ]);
    const cidAll = javaSorted(Array.from({ length: 9 }, (_, i) => `cid-${i}`));
    const got = Object.values(allocateAll(new AllocateMessageQueueConsistentHash(), mqAll, cidAll)).flat();
    expect(got.sort()).toEqual(['broker-a#0', 'broker-a#1', 'broker-b#0']);
  });
});
