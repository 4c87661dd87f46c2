import { MqkitError } from './mqkit.error';

/** An offset store could not read or write an offset; `key` names what it was reading (a file, a Redis key). */
export class OffsetStoreError extends MqkitError {
  readonly key: string | undefined;

  constructor(message: string, options: { key?: string; retriable?: boolean; cause?: unknown } = {}) {
    super(message, { code: 'OFFSET_STORE', retriable: options.retriable ?? true, cause: options.cause });
    this.key = options.key;
  }
}
