import { AllocationError, ConfigurationError } from '@mqkit/core';
import { describe, expect, it } from 'vitest';
import { allocateAll, javaSorted, queuesOf } from './allocation.fixture';
import { AllocateMessageQueueByMachineRoom } from './by-machine-room.strategy';

describe('AllocateMessageQueueByMachineRoom (MACHINE_ROOM)', () => {
  it('worked example: 8 eligible queues over 3 members give [0 1 6] [2 3 7] [4 5]', () => {
    const strategy = new AllocateMessageQueueByMachineRoom(['hz']);
    expect(strategy.name).toBe('MACHINE_ROOM');
    const got = allocateAll(strategy, queuesOf('T', [['hz@broker-a', 8]]), ['c0', 'c1', 'c2']);
    expect(got).toEqual({
      c0: ['hz@broker-a#0', 'hz@broker-a#1', 'hz@broker-a#6'],
      c1: ['hz@broker-a#2', 'hz@broker-a#3', 'hz@broker-a#7'],
      c2: ['hz@broker-a#4', 'hz@broker-a#5'],
    });
  });

  it('only room@name brokers of the configured rooms are eligible, split as Java splits on "@"', () => {
    // Sorted: "bj@x@y" (3 parts), "broker-c" (1 part), "hz@" (trailing empty part dropped: 1 part),
    // "hz@broker-a" (eligible), "sh@broker-b" (eligible), "xx@broker-d" (room not configured).
    const mqAll = queuesOf('T', [
      ['hz@broker-a', 3],
      ['sh@broker-b', 2],
      ['broker-c', 2],
      ['bj@x@y', 1],
      ['hz@', 1],
      ['xx@broker-d', 2],
    ]);
    const got = allocateAll(new AllocateMessageQueueByMachineRoom(new Set(['hz', 'sh'])), mqAll, ['c0', 'c1']);
    // 5 eligible over 2: each 2, one left over for c0 (index 0 + 2*2 = eligible[4]).
    expect(got).toEqual({
      c0: ['hz@broker-a#0', 'hz@broker-a#1', 'sh@broker-b#1'],
      c1: ['hz@broker-a#2', 'sh@broker-b#0'],
    });
  });

  it('more members than eligible queues, and ids in Java order (cid-10 before cid-2)', () => {
    const cidAll = javaSorted(['cid-2', 'cid-10', 'cid-1', 'ç-1', 'z']);
    expect(cidAll).toEqual(['cid-1', 'cid-10', 'cid-2', 'z', 'ç-1']);
    const got = allocateAll(new AllocateMessageQueueByMachineRoom(['hz']), queuesOf('T', [['hz@a', 2]]), cidAll);
    expect(got).toEqual({ 'cid-1': ['hz@a#0'], 'cid-10': ['hz@a#1'], 'cid-2': [], z: [], 'ç-1': [] });
  });

  it('no eligible queue: nobody gets anything (no error); empty inputs are AllocationErrors; a non-member gets nothing', () => {
    const strategy = new AllocateMessageQueueByMachineRoom(['hz']);
    expect(allocateAll(strategy, queuesOf('T', [['broker-a', 2]]), ['c0'])).toEqual({ c0: [] });
    expect(() => strategy.allocate({ consumerGroup: 'g', currentCID: 'c0', mqAll: [], cidAll: ['c0'] })).toThrow(
      AllocationError,
    );
    expect(
      strategy.allocate({ consumerGroup: 'g', currentCID: 'x', mqAll: queuesOf('T', [['hz@a', 1]]), cidAll: ['c0'] }),
    ).toEqual([]);
  });

  it('rejects a missing or non-string room list with ConfigurationError (a bare string is not a set of rooms)', () => {
    expect(() => new AllocateMessageQueueByMachineRoom(undefined as never)).toThrow(ConfigurationError);
    expect(() => new AllocateMessageQueueByMachineRoom('hz')).toThrow(ConfigurationError);
    expect(() => new AllocateMessageQueueByMachineRoom([1] as never)).toThrow(ConfigurationError);
  });
});
