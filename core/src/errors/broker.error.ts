import { MqkitError } from './mqkit.error';

/**
 * What kind of refusal a broker's answer was, as core acts on it. Transports map their own codes to these, so
 * core never reads a broker's numbers: `flow-control` (the broker is shedding load: pull again soon),
 * `topic-not-found`, `no-permission` (ACL), or `other`.
 */
export type BrokerErrorKind = 'flow-control' | 'topic-not-found' | 'no-permission' | 'other';

/**
 * The broker answered a request with an error response code (RocketMQ's ResponseCode numbers, e.g. 17
 * TOPIC_NOT_EXIST, 2 SYSTEM_BUSY). `retriable` follows what RocketMQ's client retries; `kind` is what core
 * decides by.
 */
export class BrokerError extends MqkitError {
  readonly responseCode: number;
  readonly brokerName: string | undefined;
  readonly kind: BrokerErrorKind;

  constructor(
    message: string,
    options: {
      responseCode: number;
      brokerName?: string;
      retriable?: boolean;
      kind?: BrokerErrorKind;
      cause?: unknown;
    },
  ) {
    super(message, {
      code: 'BROKER',
      retriable: options.retriable ?? BrokerError.isRetriableCode(options.responseCode),
      cause: options.cause,
    });
    this.responseCode = options.responseCode;
    this.brokerName = options.brokerName;
    this.kind = options.kind ?? 'other';
  }

  /**
   * Codes RocketMQ's producer retries by default (docs/rocketmq-producer-model.md#defaultmqproducer-options): 17, 14,
   * 1, 2, 16, 204, 205, 1500.
   */
  static isRetriableCode(code: number): boolean {
    return (
      code === 17 ||
      code === 14 ||
      code === 1 ||
      code === 2 ||
      code === 16 ||
      code === 204 ||
      code === 205 ||
      code === 1500
    );
  }
}
