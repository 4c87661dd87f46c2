import { Consumer, type ConsumeContext, type Message } from '@mqkit/core';
import { setTimeout as sleep } from 'node:timers/promises';
import { InstanceStats } from './instance-stats';

export const SAMPLE_TOPIC = 'SampleOrders';
export const SAMPLE_GROUP = 'sample-order-service';

export interface OrderEvent {
  readonly run: string;
  readonly seq: number;
  readonly customer: string;
  readonly amount: number;
  readonly note: string;
}

/**
 * The sample's consumer: one class, constructor-injected with its instance's stats, handling one message at a
 * time with a little simulated work.
 */
@Consumer({
  group: SAMPLE_GROUP,
  topic: SAMPLE_TOPIC,
  tags: 'created || paid',
  consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
  consumeThreadMax: 32,
  // Queues change hands only after the previous owner drained, committed and unlocked them: no duplicates.
  exclusiveHandoff: true,
})
export class OrderConsumer {
  constructor(private readonly stats: InstanceStats) {}

  async handle(message: Message<OrderEvent>, ctx: ConsumeContext): Promise<void> {
    const order = message.payload;
    // Simulated I/O: a database write would go here, honouring ctx.signal.
    if (order.seq % 7 === 0) await sleep(1, undefined, { signal: ctx.signal });
    this.stats.record(order.run, order.seq);
  }
}
