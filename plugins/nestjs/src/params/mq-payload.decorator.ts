import type { PipeTransform, Type } from '@nestjs/common';
import { MqkitParamtype } from './mqkit-paramtype';
import { paramDecorator, splitDataAndPipes } from './param-decorator.factory';

/**
 * The decoded payload of the message (an array of payloads for `batch: true`), or one property of it. Pipes run
 * on it like on `@Body()`: a pipe that throws (a `ValidationPipe` rejection) fails the call, so the message is
 * retried and, after `maxReconsumeTimes`, dead-lettered; it is never dropped.
 *
 * @example
 * ```ts
 * @Injectable()
 * class OrderHandler {
 *   @Consumer({ group: 'orders', topic: 'orders' })
 *   async created(@MqPayload(new ValidationPipe()) order: CreateOrderDto, @MqMessage() message: Message) {}
 * }
 * ```
 */
export function MqPayload(): ParameterDecorator;
export function MqPayload(...pipes: (Type<PipeTransform> | PipeTransform)[]): ParameterDecorator;
export function MqPayload(property: string, ...pipes: (Type<PipeTransform> | PipeTransform)[]): ParameterDecorator;
export function MqPayload(
  propertyOrPipe?: string | Type<PipeTransform> | PipeTransform,
  ...pipes: (Type<PipeTransform> | PipeTransform)[]
): ParameterDecorator {
  const [data, all] = splitDataAndPipes(propertyOrPipe, pipes);
  return paramDecorator(MqkitParamtype.PAYLOAD, data, all);
}
