import {
  ConfigurationError,
  Consumer,
  createConsumerApp,
  createProducer,
  type ConsumerApp,
  type Message,
} from '@mqkit/core';
import { waitFor } from '@mqkit/core/testing';
import { memoryTransport } from '@mqkit/transport-memory';
import { fastBroker } from '@mqkit/transport-memory/testing';
import { Counter, Registry, register as globalRegistry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { METRIC_NAMES } from './metric-names';
import { prometheusMetrics } from './prometheus-metrics.plugin';
import { Scrape } from './scrape';

const N = METRIC_NAMES;
const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (stops.length > 0) await stops.pop()!();
});

/** A consumer class of `group` on `topic` that hands every payload to `seen`. */
function consumerOf(group: string, topic: string, seen: (m: Message<{ seq: number }>) => void): new () => object {
  class Handler {
    handle(m: Message<{ seq: number }>): void {
      seen(m);
    }
  }
  Consumer({ group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' })(Handler);
  return Handler;
}

async function started(app: ConsumerApp): Promise<ConsumerApp> {
  await app.start();
  stops.push(() => app.stop({ timeoutMs: 5_000 }));
  return app;
}

describe('prometheusMetrics() options', () => {
  it('registers every metric on the registry at once, with the prefix before each name', async () => {
    const registry = new Registry();
    prometheusMetrics({ registry, prefix: 'billing_' });
    const names = registry.getMetricsAsArray().map((m) => m.name);
    expect(names.sort()).toEqual(
      Object.values(N)
        .map((n) => `billing_${n}`)
        .sort(),
    );
  });

  it('defaults to prom-client global register', () => {
    prometheusMetrics({ prefix: 'mqkit_default_' });
    try {
      expect(globalRegistry.getSingleMetric(`mqkit_default_${N.consumedMessages}`)).toBeDefined();
    } finally {
      for (const name of Object.values(N)) globalRegistry.removeSingleMetric(`mqkit_default_${name}`);
    }
  });

  it('rejects what is not a registry, an invalid prefix, and names the registry already holds, as ConfigurationError', () => {
    expect(() => prometheusMetrics({ registry: {} as never })).toThrow(ConfigurationError);
    expect(() => prometheusMetrics({ registry: new Registry(), prefix: '9x' })).toThrow(/option prefix = "9x"/);
    expect(() => prometheusMetrics({ registry: new Registry(), prefix: 'a-b' })).toThrow(ConfigurationError);
    const registry = new Registry();
    prometheusMetrics({ registry });
    expect(() => prometheusMetrics({ registry })).toThrow(
      /rocketmq_consumed_messages_total.*give one prometheusMetrics\(\) value to every client/,
    );
    const mine = new Registry();
    new Counter({ name: N.sentMessages, help: "the application's own", registers: [mine] });
    expect(() => prometheusMetrics({ registry: mine })).toThrow(ConfigurationError);
    // Nothing was registered by the refused call.
    expect(mine.getMetricsAsArray()).toHaveLength(1);
  });

  it('takes a registry of another prom-client copy: only its registerMetric and getSingleMetric are used', async () => {
    const real = new Registry();
    const calls: string[] = [];
    // Not an instance of this package's Registry class, as one from a second node_modules copy would not be.
    const foreign = {
      registerMetric: (metric: Parameters<Registry['registerMetric']>[0]) => {
        calls.push('registerMetric');
        real.registerMetric(metric);
      },
      getSingleMetric: (name: string) => real.getSingleMetric(name),
    };
    const broker = fastBroker();
    stops.push(async () => broker.close());
    const plugin = prometheusMetrics({ registry: foreign });
    const producer = await createProducer({ transport: memoryTransport({ broker }), group: 'p', plugins: [plugin] });
    stops.push(() => producer.stop());
    await producer.send({ topic: 'T', body: 'x' });
    expect(calls).toHaveLength(Object.keys(N).length);
    expect(
      new Scrape(await real.metrics()).value(N.sentMessages, {
        producer_group: 'p',
        topic: 'T',
        kind: 'send',
        result: 'success',
      }),
    ).toBe(1);
  });
});

describe('prometheusMetrics() in clients', () => {
  it('one value serves a consumer app and a producer; groups and topics are labelled as the application names them (namespace left out)', async () => {
    const registry = new Registry();
    const metrics = prometheusMetrics({ registry });
    const broker = fastBroker({ autoCreateTopic: false });
    stops.push(async () => broker.close());
    broker.createTopic({ topic: 'ns1%orders', queues: 2 });
    const seen: number[] = [];
    const app = await started(
      await createConsumerApp({
        transport: memoryTransport({ broker }),
        consumers: [consumerOf('billing', 'orders', (m) => seen.push(m.payload.seq))],
        plugins: [metrics],
        namespace: 'ns1',
        profile: 'fast',
        producer: { group: 'app-producer' },
      }),
    );
    const producer = await createProducer({
      transport: memoryTransport({ broker }),
      group: 'solo',
      namespace: 'ns1',
      plugins: [metrics],
    });
    stops.push(() => producer.stop());
    await app.producer.send({ topic: 'orders', payload: { seq: 0 } });
    await producer.sendBatch([1, 2, 3].map((seq) => ({ topic: 'orders', payload: { seq } })));
    await producer.sendOneway({ topic: 'orders', payload: { seq: 4 } });
    await expect(producer.send({ topic: 'no-such-topic', body: 'x' })).rejects.toThrow();
    await waitFor(() => seen.length === 5, { timeoutMs: 10_000 });

    const scrape = new Scrape(await registry.metrics());
    const sent = (producer_group: string, kind: string, result = 'success', topic = 'orders') =>
      scrape.value(N.sentMessages, { producer_group, topic, kind, result });
    expect([
      sent('app-producer', 'send'),
      sent('solo', 'batch'),
      sent('solo', 'oneway'),
      sent('solo', 'send', 'failure', 'no-such-topic'),
    ]).toEqual([1, 3, 1, 1]);
    expect(
      scrape.value(`${N.sendCostTime}_count`, { producer_group: 'solo', kind: 'batch', invocation_status: 'success' }),
    ).toBe(1);
    expect(scrape.value(N.consumedMessages, { consumer_group: 'billing', topic: 'orders', result: 'success' })).toBe(5);
    expect(
      scrape.value(`${N.processTime}_count`, {
        consumer_group: 'billing',
        topic: 'orders',
        invocation_status: 'success',
      }),
    ).toBe(5);
    expect(scrape.value(N.rebalances, { consumer_group: 'billing', topic: 'orders' })).toBe(1);
    // The lag gauge has one series per owned queue, and none names the namespace.
    expect(
      scrape
        .samples(N.queueLag, { consumer_group: 'billing', topic: 'orders' })
        .map((s) => s.labels.queue_id)
        .sort(),
    ).toEqual(['0', '1']);
    expect(scrape.text).not.toContain('ns1');
  });

  it('a stopped app leaves the gauges and its listeners go; counters keep their counts and go on when the value is registered again', async () => {
    const registry = new Registry();
    const metrics = prometheusMetrics({ registry });
    const broker = fastBroker();
    stops.push(async () => broker.close());
    broker.createTopic({ topic: 'T', queues: 4 });
    let seen = 0;
    const newApp = () =>
      createConsumerApp({
        transport: memoryTransport({ broker }),
        consumers: [consumerOf('g', 'T', () => seen++)],
        plugins: [metrics],
        profile: 'fast',
      });
    const first = await newApp();
    await first.start();
    const producer = await createProducer({ transport: memoryTransport({ broker }), group: 'p' });
    stops.push(() => producer.stop());
    for (let seq = 0; seq < 3; seq++) await producer.send({ topic: 'T', payload: { seq } });
    await waitFor(() => seen === 3, { timeoutMs: 10_000 });
    // Its 4 queues of T and the one of %RETRY%g.
    expect(
      new Scrape(await registry.metrics())
        .samples(N.queueLag)
        .map((s) => s.labels.topic)
        .sort(),
    ).toEqual(['%RETRY%g', 'T', 'T', 'T', 'T']);
    await first.stop({ timeoutMs: 5_000 });

    const afterStop = new Scrape(await registry.metrics());
    expect(
      [N.queueLag, N.cachedMessages, N.cachedBytes, N.inflightCalls].map((name) => afterStop.samples(name).length),
    ).toEqual([0, 0, 0, 0]);
    expect(afterStop.value(N.consumedMessages, { result: 'success' })).toBe(3);

    await started(await newApp());
    for (let seq = 3; seq < 5; seq++) await producer.send({ topic: 'T', payload: { seq } });
    await waitFor(() => seen === 5, { timeoutMs: 10_000 });
    expect(
      new Scrape(await registry.metrics()).value(N.consumedMessages, { consumer_group: 'g', result: 'success' }),
    ).toBe(5);
  });
});
