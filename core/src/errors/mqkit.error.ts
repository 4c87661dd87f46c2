/**
 * The base of every error mqkit throws. Decide with `instanceof` or `code`, never by message text.
 * `retriable` says whether trying the same operation again may succeed (kafkajs' KafkaJSError idea).
 */
export class MqkitError extends Error {
  readonly code: string;
  readonly retriable: boolean;

  constructor(message: string, options: { code: string; retriable?: boolean; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
    this.retriable = options.retriable ?? false;
  }
}
