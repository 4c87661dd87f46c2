import type { Message } from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TracedClients, declare } from './spec.fixture';

const contextManager = new AsyncLocalStorageContextManager();
beforeAll(() => void context.setGlobalContextManager(contextManager.enable()));
afterAll(() => context.disable());

let clients: TracedClients;
afterEach(async () => clients?.close());

/** What an untraced consumer of `topic` receives: the properties the send span injected. */
async function untracedReader(topic: string): Promise<Message[]> {
  const received: Message[] = [];
  await clients.app([declare({ group: uniqueName('reader'), topic }, (m: Message) => void received.push(m))], {
    plugins: [],
  });
  return received;
}

describe('send spans', () => {
  it('a send is a PRODUCER span "send <topic>" with the semconv attributes, whose W3C context travels in traceparent', async () => {
    clients = new TracedClients();
    const topic = uniqueName('T');
    const producer = await clients.producer();
    const result = await producer.send({ topic, body: 'x', tags: 'created', keys: ['k1', 'k2'] });
    const [span] = clients.spans(`send ${topic}`);
    expect(span).toBeDefined();
    expect(span!.kind).toBe(SpanKind.PRODUCER);
    expect(span!.parentSpanContext).toBeUndefined();
    expect(span!.status.code).toBe(SpanStatusCode.UNSET);
    expect(span!.attributes).toEqual({
      'messaging.system': 'rocketmq',
      'messaging.rocketmq.namespace': '',
      'messaging.client.id': producer.clientId,
      'messaging.destination.name': topic,
      'messaging.operation.name': 'send',
      'messaging.operation.type': 'send',
      'messaging.rocketmq.message.tag': 'created',
      'messaging.rocketmq.message.keys': ['k1', 'k2'],
      'messaging.rocketmq.message.type': 'normal',
      'messaging.message.id': result.msgId,
    });
    const received = await untracedReader(topic);
    await waitFor(() => received.length === 1);
    const { traceId, spanId } = span!.spanContext();
    expect(received[0]!.properties.traceparent).toBe(`00-${traceId}-${spanId}-01`);
  });

  it('a send inside an active span is its child; the namespace is reported apart from the topic', async () => {
    clients = new TracedClients();
    const topic = uniqueName('T');
    const producer = await clients.producer({ namespace: 'tenant1' });
    const outer = clients.provider.getTracer('app').startSpan('http request');
    await context.with(trace.setSpan(context.active(), outer), () => producer.send({ topic, body: 'x' }));
    outer.end();
    const [span] = clients.spans(`send ${topic}`);
    expect(span!.parentSpanContext?.spanId).toBe(outer.spanContext().spanId);
    expect(span!.spanContext().traceId).toBe(outer.spanContext().traceId);
    expect(span!.attributes).toMatchObject({
      'messaging.rocketmq.namespace': 'tenant1',
      'messaging.destination.name': topic,
    });
  });

  it('a batch is one span with messaging.batch.message_count; every message carries its context', async () => {
    clients = new TracedClients();
    const topic = uniqueName('T');
    const producer = await clients.producer();
    await producer.sendBatch([0, 1, 2].map((i) => ({ topic, body: `b${i}`, tags: `t${i}` })));
    const spans = clients.spans(`send ${topic}`);
    expect(spans).toHaveLength(1);
    expect(spans[0]!.attributes).toMatchObject({
      'messaging.batch.message_count': 3,
      'messaging.operation.name': 'send',
    });
    expect(spans[0]!.attributes).not.toHaveProperty('messaging.message.id');
    expect(spans[0]!.attributes).not.toHaveProperty('messaging.rocketmq.message.tag');
    const received = await untracedReader(topic);
    await waitFor(() => received.length === 3);
    expect(new Set(received.map((m) => m.properties.traceparent))).toEqual(
      new Set([`00-${spans[0]!.spanContext().traceId}-${spans[0]!.spanContext().spanId}-01`]),
    );
  });

  it('oneway is "send_oneway <topic>" without a message id; a transactional send is of type transaction', async () => {
    clients = new TracedClients();
    const topic = uniqueName('T');
    const producer = await clients.producer({ transactionListener: { checkLocalTransaction: () => 'COMMIT_MESSAGE' } });
    await producer.sendOneway({ topic, body: 'x' });
    const { sendResult } = await producer.sendInTransaction({ topic, body: 'tx' }, () => 'COMMIT_MESSAGE');
    const [oneway] = clients.spans(`send_oneway ${topic}`);
    expect(oneway!.attributes).toMatchObject({
      'messaging.operation.name': 'send_oneway',
      'messaging.operation.type': 'send',
    });
    expect(oneway!.attributes).not.toHaveProperty('messaging.message.id');
    const [transactional] = clients.spans(`send ${topic}`);
    expect(transactional!.attributes).toMatchObject({
      'messaging.rocketmq.message.type': 'transaction',
      'messaging.message.id': sendResult.msgId,
    });
  });

  it('a delayed message reports its delay level; a timer message its delivery timestamp', async () => {
    clients = new TracedClients();
    const topic = uniqueName('T');
    const producer = await clients.producer();
    await producer.send({ topic, body: 'x', delayTimeLevel: 2 });
    const due = Date.now() + 60_000;
    await producer.send({ topic, body: 'y', deliverTimeMs: due });
    const [level, timer] = clients.spans(`send ${topic}`);
    expect(level!.attributes).toMatchObject({
      'messaging.rocketmq.message.type': 'delay',
      'messaging.rocketmq.message.delay_time_level': 2,
    });
    expect(timer!.attributes).toMatchObject({
      'messaging.rocketmq.message.type': 'delay',
      'messaging.rocketmq.message.delivery_timestamp': due,
    });
  });

  it('a failed send ends with ERROR status, error.type and the exception recorded', async () => {
    clients = new TracedClients();
    const topic = uniqueName('T');
    const producer = await clients.producer();
    await expect(producer.send({ topic })).rejects.toThrow(/body is null/);
    const [span] = clients.spans(`send ${topic}`);
    expect(span!.status).toEqual({ code: SpanStatusCode.ERROR, message: expect.stringMatching(/body is null/) });
    expect(span!.attributes['error.type']).toBe('MessageValidationError');
    // The SDK names the exception by its code when it has one (mqkit's errors do).
    expect(span!.events.map((e) => [e.name, e.attributes?.['exception.message']])).toEqual([
      ['exception', expect.stringMatching(/body is null/)],
    ]);
  });

  it('a message that already carries a creation context keeps it; the send span links to it', async () => {
    clients = new TracedClients();
    const topic = uniqueName('T');
    const producer = await clients.producer();
    const own = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    await producer.send({ topic, body: 'x', properties: { traceparent: own } });
    const [span] = clients.spans(`send ${topic}`);
    expect(span!.links.map((l) => [l.context.traceId, l.context.spanId])).toEqual([
      ['0af7651916cd43dd8448eb211c80319c', 'b7ad6b7169203331'],
    ]);
    const received = await untracedReader(topic);
    await waitFor(() => received.length === 1);
    expect(received[0]!.properties.traceparent).toBe(own);
  });

  it('a request is "request <topic>" covering the reply; the replier processes it as a child; a timeout is an error', async () => {
    clients = new TracedClients();
    const topic = uniqueName('T');
    clients.broker.createTopic({ topic, queues: 1 });
    await clients.app([
      declare({ group: uniqueName('replier'), topic, reply: true }, (m: Message<{ n: number }>) => ({
        doubled: m.payload.n * 2,
      })),
    ]);
    const producer = await clients.producer();
    const reply = await producer.request<{ n: number }, { doubled: number }>(
      { topic, payload: { n: 21 } },
      { timeoutMs: 10_000 },
    );
    expect(reply.payload.doubled).toBe(42);
    const [request] = clients.spans(`request ${topic}`);
    const process = await waitFor(() => clients.spans(`process ${topic}`)[0]);
    expect(request!.attributes).toMatchObject({
      'messaging.operation.name': 'request',
      'messaging.operation.type': 'send',
    });
    expect(process.parentSpanContext?.spanId).toBe(request!.spanContext().spanId);
    expect(process.attributes['messaging.message.conversation_id']).toEqual(expect.any(String));
    await expect(producer.request({ topic: uniqueName('nobody'), body: 'x' }, { timeoutMs: 300 })).rejects.toThrow();
    const failed = clients.spans().find((s) => s.name.startsWith('request nobody'));
    expect(failed!.status.code).toBe(SpanStatusCode.ERROR);
    expect(failed!.attributes['error.type']).toBe('RequestTimeoutError');
  }, 20_000);
});
