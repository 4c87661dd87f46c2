/**
 * A pull consumer (RocketMQ's DefaultLitePullConsumer): the program asks for messages instead of being called. It
 * writes six audit entries, reads them all back from the queues it assigned itself, commits, then seeks one queue
 * back to its start and reads that queue again (a replay), and closes.
 *
 * On the embedded broker (no server to run):
 *   node dist/pull-consumer.js
 * On a real RocketMQ cluster: create the topic, then give the name server.
 *   mqadmin updateTopic -n 127.0.0.1:9876 -c DefaultCluster -t audit-log
 *   ROCKETMQ_NAMESRV=127.0.0.1:9876 node dist/pull-consumer.js
 *
 * Guide: docs/pull-consumer.md.
 */
import 'reflect-metadata';
import { createProducer, createPullConsumer, type Message, type MessageQueue } from '@mqkit/core';
import { memoryTransport } from '@mqkit/transport-memory';
import { rocketmqTransport } from '@mqkit/transport-rocketmq';

interface AuditEntry {
  id: string;
  action: string;
}

/** Whether a message was read from the queue. */
function isOn(queue: MessageQueue, message: Message): boolean {
  return message.brokerName === queue.brokerName && message.queueId === queue.queueId;
}

async function main(): Promise<void> {
  const nameServer = process.env.ROCKETMQ_NAMESRV;
  const transport = nameServer ? rocketmqTransport({ nameServer }) : memoryTransport();
  const deadline = Date.now() + 30_000;

  const producer = await createProducer({ transport, group: 'audit-writer' });
  const ids = ['E-1', 'E-2', 'E-3', 'E-4', 'E-5', 'E-6'];
  for (const [index, id] of ids.entries())
    await producer.send({ topic: 'audit-log', payload: { id, action: index % 2 ? 'login' : 'logout' }, keys: id });
  await producer.stop();

  const consumer = await createPullConsumer({
    transport,
    group: 'audit-replay',
    autoCommit: false, // offsets are stored by commit() only
    // A new group starts here on every queue it was not told to seek (the default is the queue's end).
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
  });
  const queues = await consumer.queuesOf('audit-log');
  await consumer.assign(queues); // or subscribe('audit-log'): the group's members share the queues

  const read = new Map<string, Message<AuditEntry>>();
  while (ids.some((id) => !read.has(id))) {
    if (Date.now() > deadline) throw new Error(`read only ${[...read.keys()]} of ${ids}`);
    for (const message of (await consumer.poll({ timeoutMs: 1_000 })) as Message<AuditEntry>[])
      read.set(message.payload.id, message);
  }
  console.log(`read ${read.size} audit entries: ${[...read.keys()].sort().join(', ')}`);
  await consumer.commit(); // resolves once the offsets are in the offset store

  // The replay: one queue back to its start. seek() wins over the stored offset.
  const first = read.get('E-1')!;
  const queue = queues.find((q) => isOn(q, first))!;
  const onQueue = [...read.values()].filter((m) => isOn(queue, m));
  await consumer.seekToBegin(queue);
  const replayed = new Set<string>();
  while (onQueue.some((m) => !replayed.has(m.payload.id))) {
    if (Date.now() > deadline) throw new Error(`replayed only ${[...replayed]} of queue ${queue.queueId}`);
    for (const message of (await consumer.poll({ timeoutMs: 1_000 })) as Message<AuditEntry>[])
      if (isOn(queue, message)) replayed.add(message.payload.id);
  }
  console.log(`replayed queue ${queue.queueId}: ${[...replayed].sort().join(', ')}`);

  await consumer.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
