import { Injectable } from '@nestjs/common';

/** What the sample's consumers did: an ordinary Nest provider, injected into both consumer providers. */
@Injectable()
export class OrderLedger {
  /** Order handler calls that finished (retries included). */
  billed = 0;
  /** Shipment deliveries (duplicates included). */
  shipments = 0;
  /** Distinct orders that reached shipping. */
  readonly shipped = new Set<number>();
  private waiter: { count: number; resolve: () => void } | undefined;

  recordShipments(seqs: readonly number[]): void {
    this.shipments += seqs.length;
    for (const seq of seqs) this.shipped.add(seq);
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
