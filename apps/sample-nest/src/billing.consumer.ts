import { MqConsumeContext, MqPayload, MqkitProducer, Consumer, type ConsumeContext } from '@mqkit/nestjs';
import { Inject, Injectable, ValidationPipe } from '@nestjs/common';
import { setTimeout as delay } from 'node:timers/promises';
import { OrderDto } from './order.dto';
import { OrderLedger } from './order-ledger.service';
import { SAMPLE_OPTIONS, type SampleRuntimeOptions } from './sample-runtime-options';
import { ORDERS_GROUP, ORDERS_TOPIC, SHIPMENTS_TOPIC } from './sample-topics';

/** First consumer provider: validates each order with Nest's ValidationPipe, bills it and asks for a shipment. */
@Injectable()
export class BillingConsumer {
  constructor(
    private readonly ledger: OrderLedger,
    private readonly producer: MqkitProducer,
    @Inject(SAMPLE_OPTIONS) private readonly options: SampleRuntimeOptions,
  ) {}

  @Consumer({ group: ORDERS_GROUP, topic: ORDERS_TOPIC, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' })
  async bill(
    @MqPayload(new ValidationPipe({ transform: true })) order: OrderDto,
    @MqConsumeContext() ctx: ConsumeContext,
  ): Promise<void> {
    if (this.options.workMs > 0) await delay(this.options.workMs, undefined, { signal: ctx.signal });
    await this.producer.send({
      topic: SHIPMENTS_TOPIC,
      payload: { seq: order.seq, run: order.run },
      keys: `order-${order.seq}`,
    });
    this.ledger.recordBilled(order.run);
  }
}
