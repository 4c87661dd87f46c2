import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import { propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { afterEach, describe, expect, it } from 'vitest';
import { TracedClients, declare } from './spec.fixture';

// The instrumentation scope is the published package: its name and the version in its package.json.
const PACKAGE = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string };

let clients: TracedClients;
afterEach(async () => {
  await clients?.close();
  trace.disable();
  propagation.disable();
});

describe('openTelemetry() without options', () => {
  it('uses the global tracer provider, registered even after the clients started, and the global propagator', async () => {
    clients = new TracedClients(true);
    const topic = uniqueName('T');
    clients.broker.createTopic({ topic, queues: 1 });
    await clients.app([declare({ group: uniqueName('g'), topic }, () => undefined)]);
    const producer = await clients.producer();
    // The global provider is a proxy: what registers later still gets the spans.
    trace.setGlobalTracerProvider(clients.provider);
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    await producer.send({ topic, body: 'x' });
    const process = await waitFor(() => clients.spans(`process ${topic}`)[0]);
    const [send] = clients.spans(`send ${topic}`);
    expect(process.parentSpanContext?.spanId).toBe(send!.spanContext().spanId);
    expect(send!.instrumentationScope).toEqual({
      name: '@mqkit/opentelemetry',
      version: PACKAGE.version,
      schemaUrl: undefined,
    });
  });

  it('with no propagator registered (an SDK-less setup), nothing travels: the process span starts its own trace', async () => {
    clients = new TracedClients(true);
    trace.setGlobalTracerProvider(clients.provider);
    const topic = uniqueName('T');
    clients.broker.createTopic({ topic, queues: 1 });
    const seen: Record<string, string>[] = [];
    await clients.app([
      declare(
        { group: uniqueName('g'), topic },
        (m: { properties: Record<string, string> }) => void seen.push(m.properties),
      ),
    ]);
    await (await clients.producer()).send({ topic, body: 'x' });
    const process = await waitFor(() => clients.spans(`process ${topic}`)[0]);
    expect(seen[0]).not.toHaveProperty('traceparent');
    expect(process.parentSpanContext).toBeUndefined();
    expect(process.links).toEqual([]);
  });
});
