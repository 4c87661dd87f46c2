import { MqkitError } from './mqkit.error';
import type { SendResult } from '../spi/transport.roles';

/**
 * A split batch failed after some of its batches were stored: `results` are the messages already stored (the
 * first `results.length` of the list), `cause` the failure. Sending the rest again resends nothing twice.
 */
export class BatchSendError extends MqkitError {
  readonly results: readonly SendResult[];

  constructor(results: readonly SendResult[], total: number, cause: unknown) {
    super(
      `sendBatch stored ${results.length} of ${total} messages, then failed: ${cause instanceof Error ? cause.message : String(cause)}`,
      { code: 'BATCH_SEND', retriable: cause instanceof MqkitError && cause.retriable, cause },
    );
    this.results = results;
  }
}
