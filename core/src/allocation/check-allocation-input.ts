import { AllocationError } from '../errors/allocation.error';
import type { AllocationInput } from '../spi/allocation-strategy';

/**
 * RocketMQ's AbstractAllocateMessageQueueStrategy.check: empty inputs are errors; an id that is not in the
 * list gets nothing (returns false).
 */
export function checkAllocationInput(input: AllocationInput): boolean {
  if (!input.currentCID) throw new AllocationError('currentCID is empty');
  if (input.mqAll.length === 0) throw new AllocationError('mqAll is null or mqAll empty');
  if (input.cidAll.length === 0) throw new AllocationError('cidAll is null or cidAll empty');
  return input.cidAll.includes(input.currentCID);
}
