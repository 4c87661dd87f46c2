/**
 * Prometheus metrics: one `prometheusMetrics({ registry })` value given to the consumer app and to a producer, and
 * the registry served on /metrics for Prometheus to scrape. It sends three orders, waits until they are consumed,
 * scrapes its own endpoint once, prints the consumed and sent counters, and stops.
 *
 * On the embedded broker (no server to run); METRICS_PORT picks the port (default 9464, 0 for any free one):
 *   node dist/metrics-prometheus.js
 * On a real RocketMQ cluster: create the topic, then give the name server.
 *   mqadmin updateTopic -n 127.0.0.1:9876 -c DefaultCluster -t checkouts
 *   ROCKETMQ_NAMESRV=127.0.0.1:9876 node dist/metrics-prometheus.js
 *
 * Guide: docs/operating.md, "Metrics (Prometheus)"; the metric names are in plugins/metrics-prometheus/README.md.
 */
import 'reflect-metadata';
import { EventEmitter, once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Consumer, createConsumerApp, createProducer, type Message } from '@mqkit/core';
import { prometheusMetrics } from '@mqkit/metrics-prometheus';
import { memoryTransport } from '@mqkit/transport-memory';
import { rocketmqTransport } from '@mqkit/transport-rocketmq';
import { Registry } from 'prom-client';

interface Checkout {
  id: string;
}

@Consumer({ group: 'billing', topic: 'checkouts', consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' })
class BillingConsumer {
  handle(message: Message<Checkout>): void {
    console.log(`billed checkout ${message.payload.id}`);
  }
}

async function main(): Promise<void> {
  const nameServer = process.env.ROCKETMQ_NAMESRV;
  const transport = nameServer ? rocketmqTransport({ nameServer }) : memoryTransport();

  const registry = new Registry();
  const metrics = prometheusMetrics({ registry }); // the same value for every client of the process
  const server = createServer(async (_req, res) => {
    res.writeHead(200, { 'content-type': registry.contentType }).end(await registry.metrics());
  });
  server.listen(Number(process.env.METRICS_PORT ?? 9464));
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  console.log(`metrics on http://localhost:${port}/metrics`);

  const app = await createConsumerApp({ transport, consumers: [BillingConsumer], plugins: [metrics] });
  // Handler calls that finished, from the app's event stream (the metrics plugin counts the same events).
  const consumed = new EventEmitter();
  let ok = 0;
  app.on('consumer.consume', (event) => {
    ok += event.ok;
    if (ok >= 3) consumed.emit('all');
  });
  const done = once(consumed, 'all', { signal: AbortSignal.timeout(30_000) });
  await app.start();
  await app.ready();
  const producer = await createProducer({ transport, group: 'checkout', plugins: [metrics] });
  for (const id of ['C-1', 'C-2', 'C-3']) await producer.send({ topic: 'checkouts', payload: { id } });
  await done;

  // What Prometheus would read.
  const scraped = await (await fetch(`http://localhost:${port}/metrics`)).text();
  for (const line of scraped.split('\n'))
    if (/^rocketmq_(consumed|sent)_messages_total\{/.test(line) && line.includes('checkouts')) console.log(line);

  await producer.stop();
  await app.stop({ timeoutMs: 10_000 });
  server.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
