import { MqkitError } from '@mqkit/core';

/**
 * A request that could not be sent or answered because its connection failed: refused, reset, closed by either
 * side, or closed after a malformed frame (then `cause` is the ProtocolError). Retriable: the connection is
 * re-established with back-off.
 */
export class RemotingConnectionError extends MqkitError {
  readonly address: string;

  constructor(message: string, options: { address: string; cause?: unknown }) {
    super(`${options.address}: ${message}`, { code: 'CONNECTION', retriable: true, cause: options.cause });
    this.address = options.address;
  }
}
