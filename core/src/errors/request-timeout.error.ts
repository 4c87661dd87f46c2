import { MqkitError } from './mqkit.error';

/**
 * `producer.request` got no reply within its timeout (RocketMQ's RequestTimeoutException). The request may still
 * be consumed: a reply that arrives later is dropped (`producer.reply-dropped`).
 */
export class RequestTimeoutError extends MqkitError {
  readonly correlationId: string;
  readonly timeoutMs: number;

  constructor(topic: string, correlationId: string, timeoutMs: number) {
    super(`no reply to the request on ${topic} (correlation id ${correlationId}) within ${timeoutMs} ms`, {
      code: 'REQUEST_TIMEOUT',
      retriable: true,
    });
    this.correlationId = correlationId;
    this.timeoutMs = timeoutMs;
  }
}
