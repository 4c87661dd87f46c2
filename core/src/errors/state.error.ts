import { MqkitError } from './mqkit.error';

/** A call that is not valid in the current lifecycle state (start twice, send after stop, ...). */
export class IllegalStateError extends MqkitError {
  constructor(message: string) {
    super(message, { code: 'ILLEGAL_STATE', retriable: false });
  }
}
