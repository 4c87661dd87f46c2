import { describe, expect, it } from 'vitest';
import { AllocationError } from '../errors/allocation.error';
import type { MessageQueue } from '../model/message-queue';
import { AllocateMessageQueueAveragely } from './averagely.strategy';

const queues = (n: number, broker = 'broker-a'): MessageQueue[] =>
  Array.from({ length: n }, (_, queueId) => ({ topic: 'T', brokerName: broker, queueId }));
const ids = (mqs: MessageQueue[]) => mqs.map((q) => `${q.brokerName}:${q.queueId}`);

describe('AllocateMessageQueueAveragely (RocketMQ "AVG")', () => {
  const avg = new AllocateMessageQueueAveragely();
  const alloc = (cid: string, mqAll: MessageQueue[], cidAll: string[]) =>
    ids(avg.allocate({ consumerGroup: 'g', currentCID: cid, mqAll, cidAll }));

  it('8 queues over 3 consumers: [q0 q1 q2] [q3 q4 q5] [q6 q7]', () => {
    const cids = ['c0', 'c1', 'c2'];
    expect(alloc('c0', queues(8), cids)).toEqual(['broker-a:0', 'broker-a:1', 'broker-a:2']);
    expect(alloc('c1', queues(8), cids)).toEqual(['broker-a:3', 'broker-a:4', 'broker-a:5']);
    expect(alloc('c2', queues(8), cids)).toEqual(['broker-a:6', 'broker-a:7']);
  });

  it('10 queues over 4: [0,1,2] [3,4,5] [6,7] [8,9]', () => {
    const cids = ['a', 'b', 'c', 'd'];
    expect(cids.map((c) => alloc(c, queues(10), cids).map((s) => Number(s.split(':')[1])))).toEqual([
      [0, 1, 2],
      [3, 4, 5],
      [6, 7],
      [8, 9],
    ]);
  });

  it('more consumers than queues: the first ones get one each, the rest nothing', () => {
    const cids = ['c0', 'c1', 'c2', 'c3', 'c4'];
    expect(cids.map((c) => alloc(c, queues(3), cids).length)).toEqual([1, 1, 1, 0, 0]);
  });

  it('uses the order it is given (cid-10 sorts before cid-2) and blocks per broker', () => {
    const cids = ['cid-1', 'cid-10', 'cid-2'];
    const mqAll = [...queues(2, 'broker-a'), ...queues(2, 'broker-b')];
    expect(alloc('cid-10', mqAll, cids)).toEqual(['broker-b:0']);
    expect(alloc('cid-1', mqAll, cids)).toEqual(['broker-a:0', 'broker-a:1']);
  });

  it('an id not in the list gets nothing; empty inputs throw AllocationError', () => {
    expect(alloc('zz', queues(4), ['a'])).toEqual([]);
    expect(() => avg.allocate({ consumerGroup: 'g', currentCID: '', mqAll: queues(1), cidAll: ['a'] })).toThrow(
      AllocationError,
    );
    expect(() => avg.allocate({ consumerGroup: 'g', currentCID: 'a', mqAll: [], cidAll: ['a'] })).toThrow(
      AllocationError,
    );
    expect(() => avg.allocate({ consumerGroup: 'g', currentCID: 'a', mqAll: queues(1), cidAll: [] })).toThrow(
      AllocationError,
    );
  });
});
