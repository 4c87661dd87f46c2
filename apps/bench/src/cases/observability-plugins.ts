import type { MqkitPlugin } from '@mqkit/core';
import { prometheusMetrics } from '@mqkit/metrics-prometheus';
import { openTelemetry } from '@mqkit/opentelemetry';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { Registry } from 'prom-client';

/** What `--with` may name: the observability plugins whose hot-path cost the pipeline case measures. */
export const OBSERVABILITY = ['metrics', 'tracing'] as const;
export type Observability = (typeof OBSERVABILITY)[number];

/** `--with metrics,tracing` (any subset). */
export function parseWith(args: readonly string[]): Observability[] {
  const i = args.indexOf('--with');
  if (i < 0) return [];
  const names = (args[i + 1] ?? '').split(',').filter((n) => n !== '');
  const unknown = names.filter((n) => !(OBSERVABILITY as readonly string[]).includes(n));
  if (names.length === 0 || unknown.length > 0)
    throw new Error(
      `--with takes ${OBSERVABILITY.join(', ')} (comma-separated), not ${JSON.stringify(args[i + 1] ?? '')}`,
    );
  return names as Observability[];
}

/** Ends every span as an SDK would export it, and keeps only a count: a million spans must not pile up in memory. */
class CountingExporter implements SpanExporter {
  exported = 0;
  export(spans: ReadableSpan[], done: (result: { code: 0 }) => void): void {
    this.exported += spans.length;
    done({ code: 0 });
  }
  async shutdown(): Promise<void> {}
}

/**
 * Fresh plugins for one run: a Registry of its own for the metrics; for tracing, a real SDK tracer provider with
 * the BatchSpanProcessor a production setup uses, its queue large enough that no span of the run is dropped (a
 * dropped span costs less than an exported one, which would flatter the figure). `spans()` flushes and counts.
 */
export function observabilityPlugins(names: readonly Observability[]): {
  plugins: MqkitPlugin[];
  spans: () => Promise<number>;
} {
  const plugins: MqkitPlugin[] = [];
  const exporter = new CountingExporter();
  let provider: BasicTracerProvider | undefined;
  if (names.includes('metrics')) plugins.push(prometheusMetrics({ registry: new Registry() }));
  if (names.includes('tracing')) {
    const processor = new BatchSpanProcessor(exporter, {
      maxQueueSize: 4_194_304,
      maxExportBatchSize: 8192,
      scheduledDelayMillis: 50,
    });
    provider = new BasicTracerProvider({ spanProcessors: [processor] });
    plugins.push(openTelemetry({ tracerProvider: provider, propagator: new W3CTraceContextPropagator() }));
  }
  return {
    plugins,
    spans: async () => {
      await provider?.forceFlush();
      return exporter.exported;
    },
  };
}
