import { AllocateMessageQueueAveragely, AllocationError, ConfigurationError, type MessageQueue } from '@mqkit/core';
import { describe, expect, it } from 'vitest';
import { allocateAll, queuesOf } from './allocation.fixture';
import { AllocateMessageQueueAveragelyByCircle } from './averagely-by-circle.strategy';
import { AllocateMachineRoomNearby, type MachineRoomResolver } from './machine-room-nearby.strategy';

// Rooms are the prefix before '-': broker "hz-a" and consumer "hz-1" are both in room "hz".
const resolver: MachineRoomResolver = {
  brokerDeployIn: (mq: MessageQueue) => mq.brokerName.split('-')[0]!,
  consumerDeployIn: (cid: string) => cid.split('-')[0]!,
};

describe('AllocateMachineRoomNearby (MACHINE_ROOM_NEARBY-<inner>)', () => {
  const mqAll = queuesOf('T', [
    ['hz-a', 4],
    ['sh-b', 2],
    ['bj-c', 2],
  ]); // sorted: bj-c, hz-a, sh-b

  it('is named after its inner strategy', () => {
    expect(new AllocateMachineRoomNearby(new AllocateMessageQueueAveragely(), resolver).name).toBe(
      'MACHINE_ROOM_NEARBY-AVG',
    );
    expect(new AllocateMachineRoomNearby(new AllocateMessageQueueAveragelyByCircle(), resolver).name).toBe(
      'MACHINE_ROOM_NEARBY-AVG_BY_CIRCLE',
    );
  });

  it('keeps a room with consumers to itself and shares a room without consumers among everyone (inner AVG)', () => {
    const got = allocateAll(new AllocateMachineRoomNearby(new AllocateMessageQueueAveragely(), resolver), mqAll, [
      'hz-1',
      'hz-2',
      'sh-1',
    ]);
    // hz: hz-a split by AVG over [hz-1, hz-2]; sh: sh-b to sh-1 alone; bj (no consumer): 2 queues by AVG over all 3.
    expect(got).toEqual({
      'hz-1': ['hz-a#0', 'hz-a#1', 'bj-c#0'],
      'hz-2': ['hz-a#2', 'hz-a#3', 'bj-c#1'],
      'sh-1': ['sh-b#0', 'sh-b#1'],
    });
  });

  it('orphaned rooms are walked in Java String order after the own room', () => {
    const queues = queuesOf('T', [
      ['hz-a', 1],
      ['zz-b', 1],
      ['aa-c', 1],
    ]);
    const got = allocateAll(new AllocateMachineRoomNearby(new AllocateMessageQueueAveragely(), resolver), queues, [
      'hz-1',
    ]);
    expect(got).toEqual({ 'hz-1': ['hz-a#0', 'aa-c#0', 'zz-b#0'] });
  });

  it('an empty room name for a queue or a consumer is an AllocationError (Java: IllegalArgumentException)', () => {
    const strategy = new AllocateMachineRoomNearby(new AllocateMessageQueueAveragely(), {
      ...resolver,
      consumerDeployIn: (cid) => (cid === 'x' ? '' : 'hz'),
    });
    expect(() => strategy.allocate({ consumerGroup: 'g', currentCID: 'hz-1', mqAll, cidAll: ['hz-1', 'x'] })).toThrow(
      AllocationError,
    );
    const noBrokerRoom = new AllocateMachineRoomNearby(new AllocateMessageQueueAveragely(), {
      ...resolver,
      brokerDeployIn: () => undefined as never,
    });
    expect(() => noBrokerRoom.allocate({ consumerGroup: 'g', currentCID: 'hz-1', mqAll, cidAll: ['hz-1'] })).toThrow(
      /Machine room is null for mq/,
    );
  });

  it('checks its input like the others, and its constructor arguments', () => {
    const strategy = new AllocateMachineRoomNearby(new AllocateMessageQueueAveragely(), resolver);
    expect(strategy.allocate({ consumerGroup: 'g', currentCID: 'nobody', mqAll, cidAll: ['hz-1'] })).toEqual([]);
    expect(() => strategy.allocate({ consumerGroup: 'g', currentCID: 'hz-1', mqAll: [], cidAll: ['hz-1'] })).toThrow(
      AllocationError,
    );
    expect(() => new AllocateMachineRoomNearby(undefined as never, resolver)).toThrow(ConfigurationError);
    expect(() => new AllocateMachineRoomNearby(new AllocateMessageQueueAveragely(), {} as never)).toThrow(
      ConfigurationError,
    );
  });
});
