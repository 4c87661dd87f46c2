/**
 * An SQL92 filter: the broker evaluates the consumer's expression over each message's properties (user properties
 * and TAGS), so messages that do not match never reach the consumer. Four invoices are sent; the consumer takes the
 * two EU invoices over 100 that are paid or refunded, prints them, and stops.
 *
 * On the embedded broker (no server to run):
 *   node dist/sql92-filter.js
 * On a real RocketMQ cluster: the broker needs enablePropertyFilter=true in its broker.conf (RocketMQ's default is
 * false). Create the topic, then give the name server.
 *   mqadmin updateTopic -n 127.0.0.1:9876 -c DefaultCluster -t invoices
 *   ROCKETMQ_NAMESRV=127.0.0.1:9876 node dist/sql92-filter.js
 *
 * Guide: docs/consumers.md, "SQL92 filters".
 */
import 'reflect-metadata';
import { EventEmitter, once } from 'node:events';
import { Consumer, createConsumerApp, type Message } from '@mqkit/core';
import { memoryTransport } from '@mqkit/transport-memory';
import { rocketmqTransport } from '@mqkit/transport-rocketmq';

interface Invoice {
  id: string;
}

const billed = new EventEmitter();

@Consumer({
  group: 'eu-billing',
  topic: 'invoices',
  // Property values are strings on the wire; a comparison with a number reads them as numbers.
  sql: "region = 'eu' AND amount > 100 AND TAGS IN ('paid', 'refunded')",
  consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
})
class EuBilling {
  handle(message: Message<Invoice>): void {
    const { region, amount } = message.properties;
    console.log(`billed invoice ${message.payload.id} (${region}, ${amount}, ${message.tags})`);
    billed.emit('invoice', message.payload.id);
  }
}

async function main(): Promise<void> {
  const nameServer = process.env.ROCKETMQ_NAMESRV;
  const transport = nameServer ? rocketmqTransport({ nameServer }) : memoryTransport();

  const matching = ['I-1', 'I-4'];
  const pending = new Set(matching);
  const done = once(billed, 'done', { signal: AbortSignal.timeout(30_000) });
  billed.on('invoice', (id: string) => {
    if (!matching.includes(id)) {
      console.error(`invoice ${id} does not match the filter, yet it was delivered`);
      process.exitCode = 1;
    }
    pending.delete(id);
    if (pending.size === 0) billed.emit('done');
  });

  const app = await createConsumerApp({ transport, consumers: [EuBilling], producer: { group: 'invoice-producer' } });
  await app.start();
  await app.ready();

  const invoices = [
    { id: 'I-1', tags: 'paid', region: 'eu', amount: '150' }, // matches
    { id: 'I-2', tags: 'paid', region: 'us', amount: '150' }, // not in the EU
    { id: 'I-3', tags: 'paid', region: 'eu', amount: '40' }, // 100 or less
    { id: 'I-4', tags: 'refunded', region: 'eu', amount: '220' }, // matches
  ];
  for (const { id, tags, region, amount } of invoices)
    await app.producer.send({ topic: 'invoices', payload: { id }, tags, properties: { region, amount } });
  await done;

  await app.stop({ timeoutMs: 10_000 });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
