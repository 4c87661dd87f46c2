import { MqkitError } from './mqkit.error';

/**
 * `admin.viewMessage` found no message with that id: no broker stores one at the offset an offset message id
 * names, and (given a topic) no message of the topic carries it as its UNIQ_KEY. `cause` is what the offset lookup
 * failed with, when it failed rather than found nothing.
 */
export class MessageNotFoundError extends MqkitError {
  readonly msgId: string;
  readonly topic: string | undefined;

  constructor(msgId: string, topic: string | undefined, options: { cause?: unknown } = {}) {
    super(`no message with id ${msgId}${topic === undefined ? '' : ` in topic ${topic}`}`, {
      code: 'MESSAGE_NOT_FOUND',
      retriable: false,
      cause: options.cause,
    });
    this.msgId = msgId;
    this.topic = topic;
  }
}
