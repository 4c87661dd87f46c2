import { ProtocolError } from '@mqkit/core';

/**
 * A 64-bit value from the wire (an offset, a timestamp) that a JavaScript number cannot hold exactly: beyond
 * ±Number.MAX_SAFE_INTEGER, or not an integer at all. `value` is its decimal text.
 */
export class UnsafeLongError extends ProtocolError {
  readonly field: string;
  readonly value: string;

  constructor(field: string, value: string) {
    super(
      `${field} = ${value.length > 40 ? `${value.slice(0, 40)}…` : value} is not an integer within ±${Number.MAX_SAFE_INTEGER}`,
    );
    this.field = field;
    this.value = value;
  }
}
