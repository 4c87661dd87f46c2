import { openTelemetry } from '@mqkit/opentelemetry';
import type { MqkitPlugin } from '@mqkit/core';
import { SpanKind, type AttributeValue } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { expect } from 'vitest';

/**
 * A finished span as plain data: what a traced child process prints (traced-producer.fixture.cjs writes the same
 * shape), so spans of two processes compare alike.
 */
export interface SpanRecord {
  readonly name: string;
  readonly kind: 'PRODUCER' | 'CONSUMER' | string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly attributes: Record<string, AttributeValue | undefined>;
  readonly links: readonly {
    readonly traceId: string;
    readonly spanId: string;
    readonly attributes: Record<string, AttributeValue | undefined>;
  }[];
  readonly status: { readonly code: number; readonly message?: string };
}

export function toRecord(span: ReadableSpan): SpanRecord {
  const { traceId, spanId } = span.spanContext();
  return {
    name: span.name,
    kind: SpanKind[span.kind],
    traceId,
    spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    attributes: { ...span.attributes },
    links: span.links.map((l) => ({
      traceId: l.context.traceId,
      spanId: l.context.spanId,
      attributes: { ...l.attributes },
    })),
    status: span.status,
  };
}

/** One process's tracing: a provider into an in-memory exporter, and the mqkit plugin on it with W3C trace context. */
export class Tracer {
  readonly exporter = new InMemorySpanExporter();
  readonly provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(this.exporter)] });

  plugin(): MqkitPlugin {
    return openTelemetry({ tracerProvider: this.provider, propagator: new W3CTraceContextPropagator() });
  }

  records(name?: string): SpanRecord[] {
    return this.exporter
      .getFinishedSpans()
      .filter((s) => name === undefined || s.name === name)
      .map(toRecord);
  }

  async close(): Promise<void> {
    await this.provider.shutdown();
  }
}

/** The producer spans by the id of the message each sent (a single send reports its message id). */
export function byMessageId(producers: readonly SpanRecord[]): Map<string, SpanRecord> {
  return new Map(producers.map((s) => [String(s.attributes['messaging.message.id']), s]));
}

/**
 * Every process span is the child of the send span of its message, in its trace, and links to it; a span of
 * several messages (a batch call) is a root with one link per message, each to that message's send span.
 * Returns the message ids the spans account for.
 */
export function expectCausedBySends(consumers: readonly SpanRecord[], producers: readonly SpanRecord[]): string[] {
  const sends = byMessageId(producers);
  const ids: string[] = [];
  for (const span of consumers) {
    expect(span.kind).toBe('CONSUMER');
    for (const link of span.links) {
      const id = String(link.attributes['messaging.message.id']);
      const send = sends.get(id);
      expect(send, `the send span of ${id}`).toBeDefined();
      expect([link.traceId, link.spanId]).toEqual([send!.traceId, send!.spanId]);
      ids.push(id);
    }
    if (span.links.length === 1) {
      const send = sends.get(String(span.attributes['messaging.message.id']))!;
      expect([span.traceId, span.parentSpanId]).toEqual([send.traceId, send.spanId]);
    } else {
      expect(span.parentSpanId).toBeUndefined();
      expect(span.attributes['messaging.batch.message_count']).toBe(span.links.length);
    }
  }
  return ids;
}
