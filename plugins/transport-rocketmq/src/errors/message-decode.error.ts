import { ProtocolError, type MessageRecord } from '@mqkit/core';

/**
 * A stored message record (a pull body, an inner batch) that does not decode. `position` is the byte offset of
 * the bad record in the buffer; `decoded` holds the records before it, so nothing already read is lost (RocketMQ's
 * Java decoder silently drops the rest of the buffer instead).
 */
export class MessageDecodeError extends ProtocolError {
  readonly position: number;
  readonly decoded: readonly MessageRecord[];

  constructor(message: string, options: { position: number; decoded?: readonly MessageRecord[]; cause?: unknown }) {
    super(`${message} (record at byte ${options.position})`, { cause: options.cause });
    this.position = options.position;
    this.decoded = options.decoded ?? [];
  }
}
