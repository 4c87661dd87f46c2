import { MessagePattern } from '@nestjs/microservices';
import { MQKIT_TRANSPORT, type MqkitEventExtras } from './mqkit-server-options';

/**
 * `@MessagePattern(topic, MQKIT_TRANSPORT, extras)` with typed extras: the handler answers requests sent to `topic`
 * through {@link MqkitServer} only (in a hybrid app other transports skip it), with per-handler consumer options.
 * What it returns is the reply (see `MqkitServer`).
 *
 * @example
 * ```ts
 * @MqMessagePattern('invoice-totals', { maxReconsumeTimes: 2 })
 * total(@Payload() invoice: Invoice): Total { return totalOf(invoice); }
 * ```
 */
export function MqMessagePattern(topic: string, extras: MqkitEventExtras = {}): MethodDecorator {
  return MessagePattern<string>(topic, MQKIT_TRANSPORT, { ...extras });
}
