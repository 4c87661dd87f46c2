import type { PipeTransform, Type } from '@nestjs/common';
import { MqkitParamtype } from './mqkit-paramtype';
import { paramDecorator } from './param-decorator.factory';

/**
 * The whole `Message` (RocketMQ's fields, `body`, lazily decoded `payload`); `Message[]` for `batch: true`.
 *
 * @example
 * ```ts
 * @Consumer({ group: 'audit', topic: 'orders' })
 * audit(@MqMessage() message: Message<Order>) { this.log.info(message.msgId, message.reconsumeTimes); }
 * ```
 */
export function MqMessage(...pipes: (Type<PipeTransform> | PipeTransform)[]): ParameterDecorator {
  return paramDecorator(MqkitParamtype.MESSAGE, undefined, pipes);
}
