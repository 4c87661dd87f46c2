import {
  AllocateMessageQueueAveragely,
  AllocationError,
  type AllocationInput,
  type AllocationStrategy,
  type MessageQueue,
} from '@mqkit/core';
import { describe, expect, it } from 'vitest';
import { AllocateMessageQueueAveragelyByCircle } from '../strategies/averagely-by-circle.strategy';
import { AllocateMessageQueueBalancedRendezvous } from '../strategies/balanced-rendezvous.strategy';
import { AllocateMessageQueueByMachineRoom } from '../strategies/by-machine-room.strategy';
import { AllocateMessageQueueConsistentHash } from '../strategies/consistent-hash.strategy';
import { AllocateMachineRoomNearby } from '../strategies/machine-room-nearby.strategy';
import { stringHash32 } from '../hashing/rendezvous-hash';
import { AllocationContractViolation, allocationContractChecks, checkAllocationStrategy } from './allocation-contract';
import { describeAllocationStrategyContract } from './describe-allocation-strategy-contract';

// Every strategy of this package that partitions the queues passes the contract (CONFIG ignores its input by design).
describeAllocationStrategyContract('AVG', () => new AllocateMessageQueueAveragely());
describeAllocationStrategyContract('AVG_BY_CIRCLE', () => new AllocateMessageQueueAveragelyByCircle());
describeAllocationStrategyContract('CONSISTENT_HASH', () => new AllocateMessageQueueConsistentHash());
describeAllocationStrategyContract(
  'CONSISTENT_HASH with 3 virtual nodes',
  () => new AllocateMessageQueueConsistentHash(3),
);
describeAllocationStrategyContract('BALANCED_RENDEZVOUS', () => new AllocateMessageQueueBalancedRendezvous());
describeAllocationStrategyContract('MACHINE_ROOM', () => new AllocateMessageQueueByMachineRoom(['hz', 'sh']), {
  brokerNames: ['hz@broker-a', 'sh@broker-b', 'hz@broker-c'],
});
const rooms = {
  brokerDeployIn: (mq: MessageQueue) => mq.brokerName.split('-')[0]!,
  consumerDeployIn: (cid: string) => ['hz', 'sh', 'bj'][stringHash32(cid) % 3]!,
};
describeAllocationStrategyContract(
  'MACHINE_ROOM_NEARBY-BALANCED_RENDEZVOUS',
  () => new AllocateMachineRoomNearby(new AllocateMessageQueueBalancedRendezvous(), rooms),
  { brokerNames: ['hz-a', 'sh-b', 'gz-c'] },
);

// A user's own strategy, written against core's contract only: every member takes the queues whose id mod m is its index.
class ModuloStrategy implements AllocationStrategy {
  readonly name = 'MODULO';
  allocate(input: AllocationInput): MessageQueue[] {
    if (!input.currentCID) throw new AllocationError('currentCID is empty');
    if (input.mqAll.length === 0 || input.cidAll.length === 0) throw new AllocationError('empty input');
    const index = input.cidAll.indexOf(input.currentCID);
    return index < 0 ? [] : input.mqAll.filter((_, i) => i % input.cidAll.length === index);
  }
}
describeAllocationStrategyContract('a custom class', () => new ModuloStrategy());

describe('the contract catches broken strategies', () => {
  const broken =
    (allocate: (input: AllocationInput) => MessageQueue[], name = 'BROKEN'): (() => AllocationStrategy) =>
    () => ({ name, allocate });
  const fast = { cases: 30 };

  it('non-deterministic answers', () => {
    const random = broken((input) => input.mqAll.filter(() => Math.random() < 0.5));
    expect(() =>
      allocationContractChecks[
        'is deterministic: the same input gives the same answer, on the same and on a new instance'
      ]!(random, fast),
    ).toThrow(AllocationContractViolation);
  });

  it('a queue given to two members, or to nobody', () => {
    expect(() =>
      checkAllocationStrategy(
        broken((input) => [...input.mqAll]),
        fast,
      ),
    ).toThrow(/to both/);
    expect(() =>
      checkAllocationStrategy(
        broken((input) => (input.cidAll.length > 1 ? [] : [...input.mqAll])),
        fast,
      ),
    ).toThrow(/gave nobody/);
  });

  it('a strategy that sorts its input in place (the input is frozen)', () => {
    const sorting = broken((input) => {
      (input.cidAll as string[]).sort();
      return new ModuloStrategy().allocate(input);
    });
    expect(() => checkAllocationStrategy(sorting, fast)).toThrow(/threw on a valid input/);
  });

  it('a strategy that accepts empty inputs or throws the wrong error', () => {
    const lenient = broken((input) => (input.cidAll.indexOf(input.currentCID) === 0 ? [...input.mqAll] : []));
    expect(() =>
      allocationContractChecks['rejects an empty currentCID, mqAll or cidAll with AllocationError']!(lenient, fast),
    ).toThrow(/must throw AllocationError for an empty currentCID/);
    const wrongError = broken(() => {
      throw new RangeError('nope');
    });
    expect(() =>
      allocationContractChecks['rejects an empty currentCID, mqAll or cidAll with AllocationError']!(wrongError, fast),
    ).toThrow(/threw RangeError/);
  });

  it('a strategy that hands queues to a non-member, or has no name', () => {
    const generous = broken((input) => [...input.mqAll]);
    expect(() => allocationContractChecks['gives a member that is not in cidAll nothing']!(generous, fast)).toThrow(
      /non-member/,
    );
    expect(() =>
      allocationContractChecks['has a non-empty name']!(
        broken(() => [], ''),
        fast,
      ),
    ).toThrow(/non-empty string/);
  });
});
