import { RECONSUME_LATER, type Message } from '@mqkit/core';
import { fileOffsetStore } from '@mqkit/offset-store-file';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TracedClients, declare } from './spec.fixture';

let clients: TracedClients;
afterEach(async () => clients?.close());

/** `span` is a child of `parent`, in its trace. */
function expectChildOf(span: ReadableSpan, parent: ReadableSpan): void {
  expect(span.spanContext().traceId).toBe(parent.spanContext().traceId);
  expect(span.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
}

describe('process spans', () => {
  it('a handler call of one message is a CONSUMER span "process <topic>", the child of the send span and linked to it', async () => {
    clients = new TracedClients();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    clients.broker.createTopic({ topic, queues: 1 });
    const app = await clients.app([declare({ group, topic }, () => undefined)]);
    const producer = await clients.producer();
    const result = await producer.send({ topic, body: 'x', tags: 'paid', keys: 'order-1' });
    const process = await waitFor(() => clients.spans(`process ${topic}`)[0]);
    const [send] = clients.spans(`send ${topic}`);
    expect(process.kind).toBe(SpanKind.CONSUMER);
    expectChildOf(process, send!);
    expect(process.status.code).toBe(SpanStatusCode.UNSET);
    expect(process.attributes).toEqual({
      'messaging.system': 'rocketmq',
      'messaging.rocketmq.namespace': '',
      'messaging.client.id': app.clientId,
      'messaging.destination.name': topic,
      'messaging.operation.name': 'process',
      'messaging.operation.type': 'process',
      'messaging.consumer.group.name': group,
      'messaging.rocketmq.consumption_model': 'clustering',
      'messaging.message.id': result.msgId,
      'messaging.rocketmq.message.tag': 'paid',
      'messaging.rocketmq.message.keys': ['order-1'],
    });
    expect(process.links.map((l) => [l.context.spanId, l.attributes?.['messaging.message.id']])).toEqual([
      [send!.spanContext().spanId, result.msgId],
    ]);
  });

  it('a throw is an ERROR span with the exception; a retry is another child of the same send span', async () => {
    clients = new TracedClients();
    const topic = uniqueName('T');
    clients.broker.createTopic({ topic, queues: 1 });
    let calls = 0;
    await clients.app([
      declare({ group: uniqueName('g'), topic }, () => {
        if (++calls === 1) throw new TypeError('not yet');
      }),
    ]);
    await (await clients.producer()).send({ topic, body: 'x' });
    const [failed, retried] = await waitFor(() => {
      const spans = clients.spans(`process ${topic}`);
      return spans.length === 2 ? spans : undefined;
    });
    const [send] = clients.spans(`send ${topic}`);
    expect(failed!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'not yet' });
    expect(failed!.attributes['error.type']).toBe('TypeError');
    expect(failed!.events.map((e) => [e.name, e.attributes?.['exception.type']])).toEqual([['exception', 'TypeError']]);
    expect(retried!.status.code).toBe(SpanStatusCode.UNSET);
    for (const span of [failed!, retried!]) expectChildOf(span, send!);
  });

  it('RECONSUME_LATER is an ERROR span named after the answer, without an exception', async () => {
    clients = new TracedClients();
    const topic = uniqueName('T');
    clients.broker.createTopic({ topic, queues: 1 });
    let calls = 0;
    await clients.app([
      declare({ group: uniqueName('g'), topic }, () => (++calls === 1 ? RECONSUME_LATER : undefined)),
    ]);
    await (await clients.producer()).send({ topic, body: 'x' });
    const [later] = await waitFor(() => {
      const spans = clients.spans(`process ${topic}`);
      return spans.length === 2 ? spans : undefined;
    });
    expect(later!.status.code).toBe(SpanStatusCode.ERROR);
    expect(later!.attributes['error.type']).toBe('RECONSUME_LATER');
    expect(later!.events).toEqual([]);
  });

  it('a batch call of several messages is one root span with messaging.batch.message_count and a link to each send span', async () => {
    clients = new TracedClients();
    const topic = uniqueName('T');
    clients.broker.createTopic({ topic, queues: 1 });
    const producer = await clients.producer();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await producer.send({ topic, body: `m${i}`, tags: `t${i}` })).msgId);
    const sizes: number[] = [];
    await clients.app([
      declare(
        { group: uniqueName('g'), topic, batch: true, consumeMessageBatchMaxSize: 3 },
        (ms: Message[]) => void sizes.push(ms.length),
      ),
    ]);
    const process = await waitFor(() => clients.spans(`process ${topic}`)[0]);
    expect(sizes).toEqual([3]);
    expect(process.parentSpanContext).toBeUndefined();
    expect(process.attributes['messaging.batch.message_count']).toBe(3);
    expect(process.attributes).not.toHaveProperty('messaging.message.id');
    const sends = clients.spans(`send ${topic}`);
    expect(process.links.map((l) => l.context.spanId)).toEqual(sends.map((s) => s.spanContext().spanId));
    expect(
      process.links.map((l) => [
        l.attributes?.['messaging.message.id'],
        l.attributes?.['messaging.rocketmq.message.tag'],
      ]),
    ).toEqual(ids.map((id, i) => [id, `t${i}`]));
  });

  it('a batch handler given one message counts it and still parents the span on its send', async () => {
    clients = new TracedClients();
    const topic = uniqueName('T');
    clients.broker.createTopic({ topic, queues: 1 });
    await clients.app([declare({ group: uniqueName('g'), topic, batch: true }, () => undefined)]);
    await (await clients.producer()).send({ topic, body: 'x' });
    const process = await waitFor(() => clients.spans(`process ${topic}`)[0]);
    expectChildOf(process, clients.spans(`send ${topic}`)[0]!);
    expect(process.attributes['messaging.batch.message_count']).toBe(1);
  });

  it('a namespaced BROADCASTING group reports its own names, the namespace and the consumption model', async () => {
    clients = new TracedClients();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    clients.broker.createTopic({ topic: `tenant1%${topic}`, queues: 1 });
    const dir = await mkdtemp(join(tmpdir(), 'mqkit-otel-'));
    let process: ReadableSpan;
    try {
      await clients.app([declare({ group, topic, messageModel: 'BROADCASTING' }, () => undefined)], {
        namespace: 'tenant1',
        offsetStore: fileOffsetStore({ dir }),
      });
      await (await clients.producer({ namespace: 'tenant1' })).send({ topic, body: 'x' });
      process = await waitFor(() => clients.spans(`process ${topic}`)[0]);
      await clients.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect(process.attributes).toMatchObject({
      'messaging.destination.name': topic,
      'messaging.consumer.group.name': group,
      'messaging.rocketmq.namespace': 'tenant1',
      'messaging.rocketmq.consumption_model': 'broadcasting',
    });
  });
});
