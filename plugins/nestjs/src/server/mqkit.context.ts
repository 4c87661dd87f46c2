import type { ConsumeContext, Message, MessageQueue } from '@mqkit/core';
import { BaseRpcContext } from '@nestjs/microservices';

/**
 * What `@Ctx()` gives an `@EventPattern` or `@MessagePattern` handler served by {@link MqkitServer}: the RocketMQ
 * message and core's consume context.
 *
 * @example
 * ```ts
 * @EventPattern('orders')
 * placed(@Payload() order: Order, @Ctx() ctx: MqkitContext) {
 *   this.log.info(`${ctx.getTopic()} #${ctx.getOffset()} try ${ctx.getReconsumeTimes()}`);
 * }
 * ```
 */
export class MqkitContext extends BaseRpcContext<[Message, ConsumeContext]> {
  /** The message topic; for a retried message the original topic, not `%RETRY%<group>`. */
  getTopic(): string {
    return this.args[0].topic;
  }

  /** The queue the message was pulled from (the retry queue for a retried message). */
  getQueue(): MessageQueue {
    return this.args[0].messageQueue;
  }

  /** The message's offset in that queue. */
  getOffset(): number {
    return this.args[0].queueOffset;
  }

  /** How many times the message was consumed before (0 on the first delivery). */
  getReconsumeTimes(): number {
    return this.args[0].reconsumeTimes;
  }

  /** The whole message: RocketMQ's fields, `body`, `payload`, and the stored `record`. */
  getMessage(): Message {
    return this.args[0];
  }

  /** Core's consume context: group, abort `signal`, `delayLevelWhenNextConsume`. */
  getConsumeContext(): ConsumeContext {
    return this.args[1];
  }
}
