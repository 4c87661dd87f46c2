import { Consumer, MqPayload } from '@mqkit/nestjs';
import { Injectable } from '@nestjs/common';
import { OrderLedger, type Shipment } from './order-ledger.service';
import { SHIPMENTS_TOPIC, SHIPPING_GROUP } from './sample-topics';

/** Second consumer provider: takes shipments in batches of up to 16. */
@Injectable()
export class ShippingConsumer {
  constructor(private readonly ledger: OrderLedger) {}

  @Consumer({
    group: SHIPPING_GROUP,
    topic: SHIPMENTS_TOPIC,
    batch: true,
    consumeMessageBatchMaxSize: 16,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
  })
  ship(@MqPayload() shipments: Shipment[]): void {
    this.ledger.recordShipments(shipments);
  }
}
