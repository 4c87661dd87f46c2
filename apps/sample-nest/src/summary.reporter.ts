import { MqkitConsumers } from '@mqkit/nestjs';
import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { OrderLedger } from './order-ledger.service';
import { SAMPLE_OPTIONS, type SampleRuntimeOptions } from './sample-runtime-options';
import { ORDERS_GROUP, ORDERS_TOPIC } from './sample-topics';

/** The one stdout line of a run. */
export interface SampleNestSummary {
  /** Orders acknowledged by the broker. */
  readonly produced: number;
  /** Billing handler calls that finished. */
  readonly billed: number;
  /** Shipment deliveries (duplicates included). */
  readonly shipments: number;
  /** Distinct orders shipped. */
  readonly unique: number;
  readonly duplicates: number;
  /** produced - unique: orders that never reached shipping. */
  readonly lost: number;
  /**
   * Sum of the billing group's committed offsets after the stop: read back from the embedded broker, or as the stop
   * committed them on a real cluster (there it counts earlier runs too).
   */
  readonly committed: number;
  /** The stop waited for every running handler call. */
  readonly drained: boolean;
  readonly elapsedMs: number;
}

/**
 * Prints the summary at `onApplicationShutdown`, whatever closed the app (`app.close()` at the end of a run, or
 * SIGTERM/SIGINT through Nest's shutdown hooks): by then the consumers have drained and committed.
 */
@Injectable()
export class SummaryReporter implements OnApplicationShutdown {
  summary: SampleNestSummary | undefined;

  constructor(
    private readonly ledger: OrderLedger,
    private readonly consumers: MqkitConsumers,
    @Inject(SAMPLE_OPTIONS) private readonly options: SampleRuntimeOptions,
  ) {}

  async onApplicationShutdown(signal?: string): Promise<void> {
    const report = await this.consumers.stop();
    const { broker } = this.options;
    const committed = broker
      ? broker
          .subscribeQueues(ORDERS_TOPIC)
          .reduce((sum, mq) => sum + Math.max(0, broker.queryConsumerOffset(ORDERS_GROUP, mq)), 0)
      : (report?.consumers.find((c) => c.group === ORDERS_GROUP)?.queues ?? [])
          .filter((q) => q.mq.topic === ORDERS_TOPIC)
          .reduce((sum, q) => sum + Math.max(0, q.offset), 0);
    const { produced } = this.options;
    const unique = this.ledger.shipped.size;
    this.summary = {
      produced,
      billed: this.ledger.billed,
      shipments: this.ledger.shipments,
      unique,
      duplicates: this.ledger.shipments - unique,
      lost: produced - unique,
      committed,
      drained: report?.drained ?? true,
      elapsedMs: Date.now() - this.options.startedAt,
    };
    if (signal)
      process.stderr.write(`\nmqkit sample-nest: ${signal} received; consumers drained: ${this.summary.drained}\n`);
    process.stdout.write(`${JSON.stringify(this.summary)}\n`);
  }
}
