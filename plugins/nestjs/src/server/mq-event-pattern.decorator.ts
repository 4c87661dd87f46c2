import { EventPattern } from '@nestjs/microservices';
import { MQKIT_TRANSPORT, type MqkitEventExtras } from './mqkit-server-options';

/**
 * `@EventPattern(topic, MQKIT_TRANSPORT, extras)` with typed extras: the handler consumes `topic` through
 * {@link MqkitServer} only (in a hybrid app other transports skip it), with per-handler consumer options. It also
 * sidesteps @nestjs/microservices 12's typed `@EventPattern` overloads, which with TypeScript 7 reject a handler
 * that takes a typed `@Ctx()` parameter unless the call names its type argument (`@EventPattern<string>(topic)`).
 *
 * @example
 * ```ts
 * @MqEventPattern('orders', { tags: 'paid', maxReconsumeTimes: 3 })
 * charge(@Payload() order: Order, @Ctx() ctx: MqkitContext) {}
 * ```
 */
export function MqEventPattern(topic: string, extras: MqkitEventExtras = {}): MethodDecorator {
  return EventPattern<string>(topic, MQKIT_TRANSPORT, { ...extras });
}
