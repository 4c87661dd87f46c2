import {
  AllocationError,
  ConfigurationError,
  compareJavaStrings,
  type AllocationInput,
  type AllocationStrategy,
  type MessageQueue,
} from '@mqkit/core';
import { checkAllocationInput } from '@mqkit/core/internal';

/** RocketMQ's MachineRoomResolver: which machine room a broker's queue and a consumer are deployed in. */
export interface MachineRoomResolver {
  brokerDeployIn(mq: MessageQueue): string;
  consumerDeployIn(clientId: string): string;
}

function groupBy<T>(items: readonly T[], roomOf: (item: T) => string, what: (item: T) => string): Map<string, T[]> {
  const rooms = new Map<string, T[]>();
  for (const item of items) {
    const room = roomOf(item);
    // Java: StringUtils.isNoneEmpty -> IllegalArgumentException for a null or empty room.
    if (typeof room !== 'string' || room.length === 0)
      throw new AllocationError(`Machine room is null for ${what(item)}`);
    const list = rooms.get(room);
    if (list) list.push(item);
    else rooms.set(room, [item]);
  }
  return rooms;
}

/**
 * RocketMQ's AllocateMachineRoomNearby ("MACHINE_ROOM_NEARBY-" + the inner strategy's name): queues in a room
 * that has live consumers go only to those consumers; queues in a room without consumers are shared by everyone.
 * Both splits use the inner strategy. A room that resolves to an empty or missing name is an AllocationError.
 *
 * @example
 * ```ts
 * new AllocateMachineRoomNearby(new AllocateMessageQueueAveragely(), {
 *   brokerDeployIn: (mq) => mq.brokerName.split('-')[0]!,      // "hz-broker-a" -> "hz"
 *   consumerDeployIn: (cid) => cid.split('@')[1]!.split('-')[0]!, // instanceName "hz-1" -> "hz"
 * })
 * ```
 */
export class AllocateMachineRoomNearby implements AllocationStrategy {
  readonly name: string;

  constructor(
    private readonly inner: AllocationStrategy,
    private readonly resolver: MachineRoomResolver,
  ) {
    if (!inner || typeof inner.allocate !== 'function' || typeof inner.name !== 'string') {
      throw new ConfigurationError({
        source: 'AllocateMachineRoomNearby',
        option: 'allocateMessageQueueStrategy',
        value: inner,
        allowed: 'an AllocationStrategy instance',
      });
    }
    if (!resolver || typeof resolver.brokerDeployIn !== 'function' || typeof resolver.consumerDeployIn !== 'function') {
      throw new ConfigurationError({
        source: 'AllocateMachineRoomNearby',
        option: 'machineRoomResolver',
        value: resolver,
        allowed: 'an object with brokerDeployIn(mq) and consumerDeployIn(clientId)',
      });
    }
    this.name = `MACHINE_ROOM_NEARBY-${inner.name}`;
  }

  allocate(input: AllocationInput): MessageQueue[] {
    if (!checkAllocationInput(input)) return [];
    const { consumerGroup, currentCID } = input;
    const mqByRoom = groupBy(
      input.mqAll,
      (mq) => this.resolver.brokerDeployIn(mq),
      (mq) => `mq ${JSON.stringify(mq)}`,
    );
    const cidByRoom = groupBy(
      input.cidAll,
      (cid) => this.resolver.consumerDeployIn(cid),
      (cid) => `consumer id ${cid}`,
    );
    const result: MessageQueue[] = [];
    const myRoom = this.resolver.consumerDeployIn(currentCID);
    const mine = mqByRoom.get(myRoom);
    mqByRoom.delete(myRoom);
    if (mine && mine.length > 0)
      result.push(
        ...this.inner.allocate({ consumerGroup, currentCID, mqAll: mine, cidAll: cidByRoom.get(myRoom) ?? [] }),
      );
    // Java walks a TreeMap: rooms in String order.
    for (const room of [...mqByRoom.keys()].sort(compareJavaStrings)) {
      if (!cidByRoom.has(room))
        result.push(
          ...this.inner.allocate({ consumerGroup, currentCID, mqAll: mqByRoom.get(room)!, cidAll: input.cidAll }),
        );
    }
    return result;
  }
}
