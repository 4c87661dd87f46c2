import { createProducer, type ConsumeMode, type Message } from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import { memoryTransport } from '@mqkit/transport-memory';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Harness, consumerClass } from '../support/fixtures';
import { Tracer, expectCausedBySends } from './span-records';

// What a Node SDK sets up: without a context manager a handler's own sends could not see its span.
const contextManager = new AsyncLocalStorageContextManager();
beforeAll(() => void context.setGlobalContextManager(contextManager.enable()));
afterAll(() => context.disable());

let harness: Harness;
// Two tracers, as if producer and consumer were two processes: only the message properties join their spans.
let producerSide: Tracer;
let consumerSide: Tracer;
afterEach(async () => {
  await harness?.close();
  await producerSide?.close();
  await consumerSide?.close();
});

async function tracedProducer() {
  return createProducer({
    transport: memoryTransport({ broker: harness.broker }),
    group: uniqueName('p'),
    profile: 'fast',
    plugins: [producerSide.plugin()],
  });
}

describe('tracing on the embedded broker', () => {
  it.each<[ConsumeMode, boolean]>([
    ['CONCURRENTLY', false],
    ['ORDERLY', false],
    ['CONCURRENTLY', true],
  ])(
    '%s (batch %s): every process span is caused by the send spans of its messages, with the group attributes',
    async (consumeMode, batch) => {
      harness = new Harness();
      producerSide = new Tracer();
      consumerSide = new Tracer();
      const topic = uniqueName('T');
      const group = uniqueName('g');
      harness.broker.createTopic({ topic, queues: 2 });
      const producer = await tracedProducer();
      const count = 12;
      // A batch consumer starts after the sends, so its calls get several messages each.
      const send = async () => {
        for (let seq = 0; seq < count; seq++)
          await producer.send(
            { topic, payload: { seq }, tags: `t${seq % 3}`, keys: `k${seq}` },
            consumeMode === 'ORDERLY' ? { shardingKey: `order-${seq % 4}` } : {},
          );
      };
      if (batch) await send();
      const received: number[] = [];
      const Handler = batch
        ? consumerClass(
            {
              group,
              topic,
              consumeMode,
              batch: true,
              consumeMessageBatchMaxSize: 4,
              consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
            },
            (ms) => void received.push(...ms.map((m) => m.payload.seq)),
          )
        : consumerClass(
            { group, topic, consumeMode, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
            (m) => void received.push(m.payload.seq),
          );
      const app = await harness.app([Handler], { plugins: [consumerSide.plugin()] });
      if (!batch) await send();
      await waitFor(
        () =>
          received.length === count &&
          consumerSide.records(`process ${topic}`).flatMap((s) => s.links).length === count,
      );
      await producer.stop();
      const producers = producerSide.records(`send ${topic}`);
      const consumers = consumerSide.records(`process ${topic}`);
      expect(producers).toHaveLength(count);
      expect(expectCausedBySends(consumers, producers).sort()).toEqual(
        producers.map((s) => String(s.attributes['messaging.message.id'])).sort(),
      );
      if (batch) expect(consumers.some((s) => s.links.length > 1)).toBe(true);
      for (const span of consumers) {
        expect(span.attributes).toMatchObject({
          'messaging.system': 'rocketmq',
          'messaging.destination.name': topic,
          'messaging.consumer.group.name': group,
          'messaging.rocketmq.consumption_model': 'clustering',
          'messaging.client.id': app.clientId,
        });
      }
    },
  );

  it('a handler that sends on with the app producer: its send span is the child of the process span, and the next consumer continues the trace', async () => {
    harness = new Harness();
    producerSide = new Tracer();
    consumerSide = new Tracer();
    const [orders, invoices] = [uniqueName('orders'), uniqueName('invoices')];
    harness.broker.createTopic({ topic: orders, queues: 1 });
    harness.broker.createTopic({ topic: invoices, queues: 1 });
    const invoiced: Message[] = [];
    const app = await harness.app(
      [
        consumerClass(
          { group: uniqueName('billing'), topic: orders, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
          async (m) => void (await app.producer.send({ topic: invoices, payload: { seq: m.payload.seq } })),
        ),
        consumerClass(
          { group: uniqueName('mail'), topic: invoices, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
          (m) => void invoiced.push(m),
        ),
      ],
      { plugins: [consumerSide.plugin()], producer: { group: uniqueName('billing-p') } },
    );
    const producer = await tracedProducer();
    await producer.send({ topic: orders, payload: { seq: 1 } });
    await waitFor(
      () =>
        consumerSide.records(`process ${invoices}`).length === 1 &&
        consumerSide.records(`process ${orders}`).length === 1,
    );
    await producer.stop();
    const [origin] = producerSide.records(`send ${orders}`);
    const [billing] = consumerSide.records(`process ${orders}`);
    const [forward] = consumerSide.records(`send ${invoices}`);
    const [mail] = consumerSide.records(`process ${invoices}`);
    expect([billing!.parentSpanId, forward!.parentSpanId, mail!.parentSpanId]).toEqual([
      origin!.spanId,
      billing!.spanId,
      forward!.spanId,
    ]);
    expect(new Set([origin, billing, forward, mail].map((s) => s!.traceId)).size).toBe(1);
  });
});
