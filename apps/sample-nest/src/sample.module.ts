import { MqkitModule } from '@mqkit/nestjs';
import { Module, type DynamicModule } from '@nestjs/common';
import { BillingConsumer } from './billing.consumer';
import { OrderLedger } from './order-ledger.service';
import { SAMPLE_OPTIONS, type SampleRuntimeOptions } from './sample-runtime-options';
import { PRODUCER_GROUP } from './sample-topics';
import { ShippingConsumer } from './shipping.consumer';
import { SummaryReporter } from './summary.reporter';

/** The sample application: two consumer providers, a producer, an ordinary service they share. */
@Module({})
export class SampleModule {
  static register(options: SampleRuntimeOptions): DynamicModule {
    return {
      module: SampleModule,
      imports: [
        // The embedded broker by default, rocketmqTransport({ nameServer }) with --namesrv.
        MqkitModule.forRoot({
          transport: options.transport,
          producer: { group: PRODUCER_GROUP },
          stopTimeoutMs: 10_000,
        }),
      ],
      providers: [
        { provide: SAMPLE_OPTIONS, useValue: options },
        OrderLedger,
        BillingConsumer,
        ShippingConsumer,
        SummaryReporter,
      ],
    };
  }
}
