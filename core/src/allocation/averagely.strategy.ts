import type { MessageQueue } from '../model/message-queue';
import type { AllocationInput, AllocationStrategy } from '../spi/allocation-strategy';
import { checkAllocationInput } from './check-allocation-input';

/**
 * RocketMQ's AllocateMessageQueueAveragely ("AVG"): contiguous blocks, the first `n % m` members one queue more.
 * 8 queues over 3 members: [q0 q1 q2] [q3 q4 q5] [q6 q7].
 */
export class AllocateMessageQueueAveragely implements AllocationStrategy {
  readonly name = 'AVG';

  allocate(input: AllocationInput): MessageQueue[] {
    if (!checkAllocationInput(input)) return [];
    const { mqAll, cidAll } = input;
    const index = cidAll.indexOf(input.currentCID);
    const n = mqAll.length;
    const m = cidAll.length;
    const mod = n % m;
    const size = n <= m ? 1 : mod > 0 && index < mod ? Math.floor(n / m) + 1 : Math.floor(n / m);
    const start = mod > 0 && index < mod ? index * size : index * size + mod;
    const range = Math.min(size, n - start);
    const result: MessageQueue[] = [];
    for (let i = 0; i < range; i++) result.push(mqAll[(start + i) % n]!);
    return result;
  }
}
