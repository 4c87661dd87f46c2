'use strict';
/*
 * A traced producer run as a real child process by tracing.spec.ts: its own tracer provider, the mqkit
 * OpenTelemetry plugin with W3C trace context, and COUNT sends to each topic of TOPICS (the ORDERED one with a
 * sharding key). It reports its finished spans over IPC in the shape of span-records.ts, then waits to be let go.
 * Environment: NAMESRV, TOPICS (comma-separated), ORDERED (one of them), COUNT, GROUP, INSTANCE.
 * Reports: { type: 'spans', clientId, spans } or { type: 'error', message }.
 */
const { createProducer } = require('@mqkit/core');
const { rocketmqTransport } = require('@mqkit/transport-rocketmq');
const { openTelemetry } = require('@mqkit/opentelemetry');
const { SpanKind } = require('@opentelemetry/api');
const { W3CTraceContextPropagator } = require('@opentelemetry/core');
const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base');

const { NAMESRV, TOPICS, ORDERED, COUNT, GROUP, INSTANCE } = process.env;

function toRecord(span) {
  const { traceId, spanId } = span.spanContext();
  const links = span.links.map((l) => ({
    traceId: l.context.traceId,
    spanId: l.context.spanId,
    attributes: { ...l.attributes },
  }));
  return {
    name: span.name,
    kind: SpanKind[span.kind],
    traceId,
    spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    attributes: { ...span.attributes },
    links,
    status: span.status,
  };
}

async function main() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const producer = await createProducer({
    transport: rocketmqTransport({ nameServer: NAMESRV }),
    group: GROUP,
    profile: 'fast',
    instanceName: INSTANCE,
    sendMsgTimeout: 10_000,
    plugins: [openTelemetry({ tracerProvider: provider, propagator: new W3CTraceContextPropagator() })],
  });
  for (const topic of TOPICS.split(',')) {
    for (let seq = 0; seq < Number(COUNT); seq++) {
      const message = { topic, payload: { seq }, tags: `t${seq % 3}`, keys: `k${seq}` };
      await producer.send(message, topic === ORDERED ? { shardingKey: `order-${seq % 4}` } : {});
    }
  }
  await producer.stop();
  await provider.forceFlush();
  process.send({ type: 'spans', clientId: producer.clientId, spans: exporter.getFinishedSpans().map(toRecord) });
  process.on('disconnect', () => process.exit(0));
}

main().catch((error) => {
  process.send?.({ type: 'error', message: String(error?.stack) });
  process.exit(1);
});
