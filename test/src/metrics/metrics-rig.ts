import {
  createConsumerApp,
  createProducer,
  type ConsumerApp,
  type ConsumerAppOptions,
  type SendResult,
  type StandaloneProducer,
} from '@mqkit/core';
import { prometheusMetrics } from '@mqkit/metrics-prometheus';
import { Scrape } from '@mqkit/metrics-prometheus/testing';
import { Registry } from 'prom-client';
import type { TestBroker } from '../support/test-broker';
import { serveMetrics, type MetricsEndpoint } from './metrics-endpoint';

/**
 * One test's registry, its /metrics endpoint, and the apps and producers registered with one prometheusMetrics()
 * value; `close()` stops them all.
 */
export class MetricsRig {
  readonly registry = new Registry();
  readonly metrics = prometheusMetrics({ registry: this.registry });
  private endpoint: MetricsEndpoint | undefined;
  private readonly stops: (() => Promise<unknown>)[] = [];

  constructor(readonly broker: TestBroker) {}

  /** Scrapes the endpoint over HTTP, as Prometheus does. */
  async scrape(): Promise<Scrape> {
    if (!this.endpoint) {
      this.endpoint = await serveMetrics(this.registry);
      const endpoint = this.endpoint;
      this.stops.push(() => endpoint.close());
    }
    return Scrape.fetch(this.endpoint.url);
  }

  async app(consumers: ConsumerAppOptions['consumers']): Promise<ConsumerApp> {
    const app = await createConsumerApp({
      transport: this.broker.transport(),
      consumers,
      plugins: [this.metrics],
      profile: 'fast',
    });
    this.stops.push(() => app.stop({ timeoutMs: 5_000 }));
    await app.start();
    return app;
  }

  async producer(group: string): Promise<StandaloneProducer> {
    // A generous send timeout: the test brokers share two cores with everything else on the box.
    const producer = await createProducer({
      transport: this.broker.transport(),
      group,
      plugins: [this.metrics],
      profile: 'fast',
      sendMsgTimeout: 10_000,
    });
    this.stops.push(() => producer.stop());
    return producer;
  }

  /** Sends `{ seq }` for seq in [from, from + count), at most `window` at once; resolves with the results in seq order. */
  async send(
    producer: StandaloneProducer,
    topic: string,
    from: number,
    count: number,
    window = 64,
  ): Promise<SendResult[]> {
    const results: SendResult[] = [];
    const running = new Set<Promise<void>>();
    for (let seq = from; seq < from + count; seq++) {
      const sent: Promise<void> = producer.send({ topic, payload: { seq } }).then((r) => {
        results[seq - from] = r;
        running.delete(sent);
      });
      running.add(sent);
      if (running.size >= window) await Promise.race(running);
    }
    await Promise.all(running);
    return results;
  }

  async close(): Promise<void> {
    while (this.stops.length > 0) await this.stops.pop()!();
  }
}
