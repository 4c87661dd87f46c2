import { MqkitError } from '../errors/mqkit.error';

/** An SQL92 subscription expression that cannot be used: where (0-based column) and why. */
export class Sql92Error extends MqkitError {
  readonly expression: string;
  readonly position: number;
  readonly reason: string;

  constructor(expression: string, position: number, reason: string) {
    super(`invalid SQL92 expression at column ${position + 1}: ${reason}`, { code: 'SQL92_INVALID', retriable: false });
    this.expression = expression;
    this.position = position;
    this.reason = reason;
  }
}
