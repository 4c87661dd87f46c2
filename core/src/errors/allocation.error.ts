import { MqkitError } from './mqkit.error';

/**
 * An allocation strategy refused its input, where RocketMQ's Java strategies throw IllegalArgumentException
 * (empty consumer id, queue list or consumer list). The rebalance treats it as "not balanced" and retries.
 */
export class AllocationError extends MqkitError {
  constructor(message: string) {
    super(message, { code: 'ALLOCATION', retriable: true });
  }
}
