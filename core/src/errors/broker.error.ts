import { MqkitError } from './mqkit.error';

/**
 * The broker answered a request with an error response code (RocketMQ's ResponseCode numbers, e.g. 17
 * TOPIC_NOT_EXIST, 2 SYSTEM_BUSY). `retriable` follows what RocketMQ's client retries.
 */
export class BrokerError extends MqkitError {
  readonly responseCode: number;
  readonly brokerName: string | undefined;

  constructor(message: string, options: { responseCode: number; brokerName?: string; retriable?: boolean; cause?: unknown }) {
    super(message, { code: 'BROKER', retriable: options.retriable ?? BrokerError.isRetriableCode(options.responseCode), cause: options.cause });
    this.responseCode = options.responseCode;
    this.brokerName = options.brokerName;
  }

  /** Codes RocketMQ's producer retries by default (producer-semantics.md §1): 17, 14, 1, 2, 16, 204, 205, 1500. */
  static isRetriableCode(code: number): boolean {
    return code === 17 || code === 14 || code === 1 || code === 2 || code === 16 || code === 204 || code === 205 || code === 1500;
  }
}
