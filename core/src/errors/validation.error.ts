import { MqkitError } from './mqkit.error';

/**
 * A message that RocketMQ would refuse, rejected before anything is sent. `rule` names the rule broken
 * (`topic.blank`, `topic.chars`, `topic.length`, `topic.reserved`, `body.empty`, `body.size`, ...).
 */
export class MessageValidationError extends MqkitError {
  readonly rule: string;

  constructor(rule: string, message: string) {
    super(message, { code: 'MESSAGE_INVALID', retriable: false });
    this.rule = rule;
  }
}
