/**
 * Request-reply: a consumer declared with `reply: true` answers each request with its handler's return value, and
 * `producer.request` resolves with that reply (RocketMQ's DefaultMQProducer.request). It asks for two prices,
 * prints the replies, and stops.
 *
 * On the embedded broker (no server to run):
 *   node dist/request-reply.js
 * On a real RocketMQ cluster: create the topic (the reply topic, <cluster>_REPLY_TOPIC, every broker creates
 * itself), then give the name server.
 *   mqadmin updateTopic -n 127.0.0.1:9876 -c DefaultCluster -t price-requests
 *   ROCKETMQ_NAMESRV=127.0.0.1:9876 node dist/request-reply.js
 *
 * Guide: docs/producer.md, "Request-reply".
 */
import 'reflect-metadata';
import { Consumer, createConsumerApp, type Message } from '@mqkit/core';
import { memoryTransport } from '@mqkit/transport-memory';
import { rocketmqTransport } from '@mqkit/transport-rocketmq';

interface PriceRequest {
  sku: string;
}

interface Price {
  sku: string;
  cents: number;
}

const CATALOG: Record<string, number> = { A1: 1_250, B2: 399 };

@Consumer({ group: 'price-service', topic: 'price-requests', reply: true })
class Prices {
  // The return value is the reply, encoded by the consumer's codec (JSON by default).
  async handle(message: Message<PriceRequest>): Promise<Price> {
    const cents = CATALOG[message.payload.sku];
    if (cents === undefined) throw new Error(`unknown sku ${message.payload.sku}`); // retried, no reply yet
    return { sku: message.payload.sku, cents };
  }
}

async function main(): Promise<void> {
  const nameServer = process.env.ROCKETMQ_NAMESRV;
  const transport = nameServer ? rocketmqTransport({ nameServer }) : memoryTransport();

  const app = await createConsumerApp({ transport, consumers: [Prices], producer: { group: 'price-client' } });
  await app.start();
  await app.ready();

  for (const sku of ['A1', 'B2']) {
    // Rejects with RequestTimeoutError when no reply comes within timeoutMs.
    const reply = await app.producer.request<PriceRequest, Price>(
      { topic: 'price-requests', payload: { sku } },
      { timeoutMs: 5_000 },
    );
    console.log(`price of ${reply.payload.sku}: ${reply.payload.cents} cents`);
  }

  await app.stop({ timeoutMs: 10_000 });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
