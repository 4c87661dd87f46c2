import 'reflect-metadata';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import { METRIC_NAMES as N, prometheusMetrics } from '@mqkit/metrics-prometheus';
import { Scrape } from '@mqkit/metrics-prometheus/testing';
import { Consumer, MqkitModule, MqkitProducer } from '@mqkit/nestjs';
import { memoryTransport } from '@mqkit/transport-memory';
import { fastBroker } from '@mqkit/transport-memory/testing';
import { Injectable } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { Registry } from 'prom-client';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { serveMetrics, type MetricsEndpoint } from './metrics-endpoint';

let app: TestingModule | undefined;
let endpoint: MetricsEndpoint | undefined;
const broker = fastBroker();
afterEach(async () => {
  await app?.close();
  await endpoint?.close();
});
afterAll(() => broker.close());

describe('Prometheus metrics in a Nest application', () => {
  it('MqkitModule.forRoot({ plugins: [prometheusMetrics({ registry })] }) reports its consumers and MqkitProducer', async () => {
    const topic = uniqueName('T');
    const group = uniqueName('g');
    broker.createTopic({ topic, queues: 2 });
    const registry = new Registry();
    @Injectable()
    class Orders {
      @Consumer({ group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' })
      handle(): void {}
    }
    app = await Test.createTestingModule({
      imports: [
        MqkitModule.forRoot({
          transport: memoryTransport({ broker }),
          profile: 'fast',
          plugins: [prometheusMetrics({ registry })],
          producer: { group: 'nest-orders' },
        }),
      ],
      providers: [Orders],
    }).compile();
    app.useLogger(false);
    await app.init();
    const producer = app.get(MqkitProducer);
    for (let seq = 0; seq < 10; seq++) await producer.send({ topic, payload: { seq } });
    endpoint = await serveMetrics(registry);
    const url = endpoint.url;
    const scrape = await waitFor(
      async () => {
        const s = await Scrape.fetch(url);
        return s.value(N.consumedMessages, { consumer_group: group, topic, result: 'success' }) === 10 ? s : undefined;
      },
      { timeoutMs: 20_000, message: '10 consumed' },
    );
    expect(
      scrape.value(N.sentMessages, { producer_group: 'nest-orders', topic, kind: 'send', result: 'success' }),
    ).toBe(10);
    expect(scrape.samples(N.queueLag, { consumer_group: group, topic })).toHaveLength(2);
  });
});
