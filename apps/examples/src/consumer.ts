/**
 * A consumer: a class with `@Consumer` handles the messages of a topic. This one gets its repository by constructor
 * injection (tsyringe), takes only two of the topic's tags, and hands the call's abort signal on to the save. A
 * handler that throws has its message retried later. It sends three orders, prints the two it takes, and stops.
 *
 * On the embedded broker (no server to run):
 *   node dist/consumer.js
 * On a real RocketMQ cluster: create the topic, then give the name server.
 *   mqadmin updateTopic -n 127.0.0.1:9876 -c DefaultCluster -t orders
 *   ROCKETMQ_NAMESRV=127.0.0.1:9876 node dist/consumer.js
 *
 * Guide: docs/consumers.md, "A consumer".
 */
import 'reflect-metadata';
import { EventEmitter, once } from 'node:events';
import { Consumer, createConsumerApp, type ConsumeContext, type Message } from '@mqkit/core';
import { memoryTransport } from '@mqkit/transport-memory';
import { rocketmqTransport } from '@mqkit/transport-rocketmq';
import { container } from 'tsyringe';

interface Order {
  id: string;
  amount: number;
}

/** The app's storage; in a service, a database. */
class OrderRepository extends EventEmitter {
  async save(order: Order, options: { signal: AbortSignal }): Promise<void> {
    options.signal.throwIfAborted(); // a stop that ran out of time aborted this call
    this.emit('saved', order);
  }
}

@Consumer({
  group: 'order-store',
  topic: 'orders',
  tags: 'created || paid', // 'cancelled' orders are filtered out by the broker
  consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', // a new group reads what the topic already holds
})
class OrderConsumer {
  constructor(private readonly repository: OrderRepository) {}

  async handle(message: Message<Order>, ctx: ConsumeContext): Promise<void> {
    await this.repository.save(message.payload, { signal: ctx.signal });
    console.log(`saved order ${message.payload.id} (${message.tags})`);
  }
}

async function main(): Promise<void> {
  const nameServer = process.env.ROCKETMQ_NAMESRV;
  const transport = nameServer ? rocketmqTransport({ nameServer }) : memoryTransport();

  // One repository for the whole app: the consumer's constructor gets this instance.
  const repository = new OrderRepository();
  container.registerInstance(OrderRepository, repository);
  const expected = new Set(['A-1', 'A-2']);
  const allSaved = once(repository, 'all-saved', { signal: AbortSignal.timeout(30_000) });
  repository.on('saved', (order: Order) => {
    expected.delete(order.id);
    if (expected.size === 0) repository.emit('all-saved');
  });

  const app = await createConsumerApp({ transport, consumers: [OrderConsumer], producer: { group: 'order-producer' } });
  await app.start();
  await app.ready(); // the group owns its queues

  await app.producer.send({ topic: 'orders', payload: { id: 'A-1', amount: 30 }, tags: 'created' });
  await app.producer.send({ topic: 'orders', payload: { id: 'A-2', amount: 30 }, tags: 'paid' });
  await app.producer.send({ topic: 'orders', payload: { id: 'A-3', amount: 12 }, tags: 'cancelled' });
  await allSaved;

  // Running handlers finish, offsets are committed, the group is left.
  const report = await app.stop({ timeoutMs: 10_000 });
  console.log(`stopped, drained: ${report.drained}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
