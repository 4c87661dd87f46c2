import { ConfigurationError, type AllocationInput, type AllocationStrategy, type MessageQueue } from '@mqkit/core';
import { checkAllocationInput } from '@mqkit/core/internal';

/** Java's `String.split("@")`: trailing empty parts are dropped, so "room@" has one part and "a@b@" two. */
function splitLikeJava(text: string): string[] {
  const parts = text.split('@');
  if (parts.length === 1) return parts;
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/**
 * RocketMQ's AllocateMessageQueueByMachineRoom ("MACHINE_ROOM"): only queues whose brokerName is `room@name` with
 * `room` in `consumeridcs` are allocated (in input order); member `i` of `m` takes a contiguous run of
 * floor(k/m), then one of the leftovers: 8 eligible queues over 3 members give [q0 q1 q6] [q2 q3 q7] [q4 q5].
 *
 * @param consumeridcs - the machine rooms this group consumes from (Java's setConsumeridcs).
 */
export class AllocateMessageQueueByMachineRoom implements AllocationStrategy {
  readonly name = 'MACHINE_ROOM';
  readonly consumeridcs: ReadonlySet<string>;

  constructor(consumeridcs: Iterable<string>) {
    const rooms = consumeridcs == null || typeof consumeridcs === 'string' ? undefined : [...consumeridcs];
    if (!rooms || rooms.some((room) => typeof room !== 'string')) {
      throw new ConfigurationError({
        source: 'AllocateMessageQueueByMachineRoom',
        option: 'consumeridcs',
        value: consumeridcs,
        allowed: 'an iterable of machine-room names (strings), e.g. a Set',
      });
    }
    this.consumeridcs = new Set(rooms);
  }

  allocate(input: AllocationInput): MessageQueue[] {
    if (!checkAllocationInput(input)) return [];
    const index = input.cidAll.indexOf(input.currentCID);
    const eligible = input.mqAll.filter((mq) => {
      const parts = splitLikeJava(mq.brokerName);
      return parts.length === 2 && this.consumeridcs.has(parts[0]!);
    });
    const m = input.cidAll.length;
    const each = Math.floor(eligible.length / m);
    const rest = eligible.length % m;
    const result = eligible.slice(each * index, each * index + each);
    if (rest > index) result.push(eligible[index + each * m]!);
    return result;
  }
}
