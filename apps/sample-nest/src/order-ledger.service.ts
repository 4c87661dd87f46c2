import { Inject, Injectable } from '@nestjs/common';
import { SAMPLE_OPTIONS, type SampleRuntimeOptions } from './sample-runtime-options';

/** A shipment request, as billing sends it. */
export interface Shipment {
  readonly seq: number;
  readonly run: string;
}

/**
 * What the sample's consumers did in this run: an ordinary Nest provider, injected into both consumer providers.
 * Orders of earlier runs (left on a real cluster's topics) are handled but not counted.
 */
@Injectable()
export class OrderLedger {
  /** Order handler calls of this run that finished (retries included). */
  billed = 0;
  /** Shipment deliveries of this run (duplicates included). */
  shipments = 0;
  /** Distinct orders that reached shipping. */
  readonly shipped = new Set<number>();
  private waiter: { count: number; resolve: () => void } | undefined;

  constructor(@Inject(SAMPLE_OPTIONS) private readonly options: SampleRuntimeOptions) {}

  recordBilled(run: string): void {
    if (run === this.options.runId) this.billed++;
  }

  recordShipments(shipments: readonly Shipment[]): void {
    for (const { seq, run } of shipments) {
      if (run !== this.options.runId) continue;
      this.shipments++;
      this.shipped.add(seq);
    }
    if (this.waiter && this.shipped.size >= this.waiter.count) {
      this.waiter.resolve();
      this.waiter = undefined;
    }
  }

  /** Resolves once `count` distinct orders have shipped. */
  whenShipped(count: number): Promise<void> {
    if (this.shipped.size >= count) return Promise.resolve();
    return new Promise((resolve) => (this.waiter = { count, resolve }));
  }
}
