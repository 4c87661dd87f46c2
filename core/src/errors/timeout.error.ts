import { MqkitError } from './mqkit.error';

/** An operation did not finish within its time budget. */
export class TimeoutError extends MqkitError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { code: 'TIMEOUT', retriable: true, cause: options.cause });
  }
}
