import {
  createConsumerApp,
  createProducer,
  type ConsumerApp,
  type ConsumerAppOptions,
  type ConsumerDeclaration,
  type ConsumerOptions,
  type StandaloneProducer,
  type StandaloneProducerOptions,
} from '@mqkit/core';
import { uniqueName } from '@mqkit/core/testing';
import { memoryTransport } from '@mqkit/transport-memory';
import { fastBroker } from '@mqkit/transport-memory/testing';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { openTelemetry, type OpenTelemetryOptions } from './opentelemetry.plugin';

/**
 * A handler as a declaration (no decorated class): `handle` gets a message, or an array with `batch: true`. From the
 * first offset by default: a send right after `start()` may come before the group's first rebalance.
 */
export function declare(options: ConsumerOptions, handle: (input: never) => unknown): ConsumerDeclaration {
  return {
    options: { consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', ...options },
    handler: { className: 'Traced', method: 'handle', resolve: () => ({ handle }) },
  };
}

/** An embedded broker, clients on it traced into one in-memory exporter; `close()` stops them all. */
export class TracedClients {
  readonly broker = fastBroker();
  readonly exporter = new InMemorySpanExporter();
  readonly provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(this.exporter)] });
  private readonly stops: (() => Promise<unknown>)[] = [];

  private readonly tracing: OpenTelemetryOptions;

  /** The plugin on this provider with W3C trace context, or (`global`) on the globally registered ones. */
  constructor(global = false) {
    this.tracing = global ? {} : { tracerProvider: this.provider, propagator: new W3CTraceContextPropagator() };
  }

  async producer(options: Partial<StandaloneProducerOptions> = {}): Promise<StandaloneProducer> {
    const producer = await createProducer({
      transport: memoryTransport({ broker: this.broker }),
      group: uniqueName('p'),
      profile: 'fast',
      plugins: [openTelemetry(this.tracing)],
      ...options,
    });
    this.stops.push(() => producer.stop());
    return producer;
  }

  async app(
    consumers: ConsumerAppOptions['consumers'],
    options: Partial<ConsumerAppOptions> = {},
  ): Promise<ConsumerApp> {
    const app = await createConsumerApp({
      transport: memoryTransport({ broker: this.broker }),
      consumers,
      profile: 'fast',
      plugins: [openTelemetry(this.tracing)],
      ...options,
    });
    this.stops.push(() => app.stop({ timeoutMs: 2_000 }));
    await app.start();
    return app;
  }

  spans(name?: string): ReadableSpan[] {
    return this.exporter.getFinishedSpans().filter((s) => name === undefined || s.name === name);
  }

  async close(): Promise<void> {
    const stops = this.stops.splice(0).reverse();
    for (const stop of stops) await stop();
    if (stops.length > 0) await this.provider.shutdown();
  }
}
