import 'reflect-metadata';
import { injectable } from 'tsyringe';
import type { ConsumerOptions } from '../options/consumer-options';
import { CONSUMER_METADATA, type ConsumerMetadata } from './consumer.metadata';

/**
 * Declares a RocketMQ push consumer. On a class, its `handle` method receives the messages; on methods, each
 * decorated method does. Declarations with the same group merge into one consumer with several subscriptions.
 * The decorator only records metadata; options are checked by `app.start()`.
 *
 * @example
 * ```ts
 * @Consumer({ group: 'order-service', topic: 'orders', tags: 'created || paid' })
 * class OrderConsumer {
 *   constructor(private readonly repo: OrderRepository) {}   // injected by tsyringe
 *   async handle(message: Message<Order>, ctx: ConsumeContext) {
 *     await this.repo.save(message.payload);                 // throw => retried later
 *   }
 * }
 *
 * @injectable()
 * class Audit {
 *   @Consumer({ group: 'audit', topic: 'orders', batch: true, consumeMessageBatchMaxSize: 16 })
 *   async orders(batch: Message<Order>[]) {}
 *   @Consumer({ group: 'audit', topic: 'payments' })
 *   async payments(message: Message<Payment>) {}
 * }
 * ```
 */
export function Consumer(options: ConsumerOptions): ClassDecorator & MethodDecorator {
  return ((target: object, propertyKey?: string | symbol) => {
    const isClass = propertyKey === undefined;
    const owner: object = isClass ? target : target.constructor;
    const entry: ConsumerMetadata = { options: { ...options }, method: isClass ? 'handle' : propertyKey };
    const existing = (Reflect.getOwnMetadata(CONSUMER_METADATA, owner) as ConsumerMetadata[] | undefined) ?? [];
    Reflect.defineMetadata(CONSUMER_METADATA, [...existing, entry], owner);
    // A class-level @Consumer is the class's only decorator in typical code, so it also marks the class injectable
    // (tsyringe needs that to read design:paramtypes for constructor injection).
    if (isClass) injectable()(target as new (...args: never[]) => unknown);
  }) as ClassDecorator & MethodDecorator;
}
