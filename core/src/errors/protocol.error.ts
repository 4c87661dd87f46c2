import { MqkitError } from './mqkit.error';

/** Bytes that do not decode: a malformed frame or message record. The connection that sent them is closed. */
export class ProtocolError extends MqkitError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { code: 'PROTOCOL', retriable: true, cause: options.cause });
  }
}
