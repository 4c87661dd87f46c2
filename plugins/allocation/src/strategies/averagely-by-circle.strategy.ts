import type { AllocationInput, AllocationStrategy, MessageQueue } from '@mqkit/core';
import { checkAllocationInput } from '@mqkit/core/internal';

/**
 * RocketMQ's AllocateMessageQueueAveragelyByCircle ("AVG_BY_CIRCLE"): round robin over the sorted queues.
 * Member `i` of `m` takes queues i, i+m, i+2m, ... 8 queues over 3 members: [q0 q3 q6] [q1 q4 q7] [q2 q5].
 *
 * @example
 * ```ts
 * @Consumer({ group: 'g', topic: 't', strategy: 'AVG_BY_CIRCLE' })   // with plugins: [allocationStrategies()]
 * ```
 */
export class AllocateMessageQueueAveragelyByCircle implements AllocationStrategy {
  readonly name = 'AVG_BY_CIRCLE';

  allocate(input: AllocationInput): MessageQueue[] {
    if (!checkAllocationInput(input)) return [];
    const { mqAll, cidAll } = input;
    const index = cidAll.indexOf(input.currentCID);
    const result: MessageQueue[] = [];
    for (let i = index; i < mqAll.length; i += cidAll.length) result.push(mqAll[i]!);
    return result;
  }
}
