/**
 * Dead letters: a message whose handler keeps failing is retried, and past `maxReconsumeTimes` the broker moves it
 * to the group's dead-letter topic `%DLQ%<group>`, a topic like any other. An importer fails on a malformed row
 * twice (the first try and one retry, 1 s later); then a second group reads the dead-letter topic, prints the
 * message, and the program stops.
 *
 * On the embedded broker (no server to run):
 *   node dist/dead-letters.js
 * On a real RocketMQ cluster: create the topic, then give the name server. The broker creates %DLQ%import-service
 * with the first dead letter.
 *   mqadmin updateTopic -n 127.0.0.1:9876 -c DefaultCluster -t imports
 *   ROCKETMQ_NAMESRV=127.0.0.1:9876 node dist/dead-letters.js
 *
 * Guide: docs/delivery-semantics.md, "Retry and the dead-letter queue".
 */
import 'reflect-metadata';
import { EventEmitter, once } from 'node:events';
import { Consumer, createConsumerApp, dlqTopicOf, type ConsumeContext, type Message } from '@mqkit/core';
import { memoryTransport } from '@mqkit/transport-memory';
import { rocketmqTransport } from '@mqkit/transport-rocketmq';

interface Row {
  line: number;
  text: string;
}

@Consumer({
  group: 'import-service',
  topic: 'imports',
  maxReconsumeTimes: 1, // one retry, then the DLQ (RocketMQ's default is 16)
  consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
})
class Importer {
  handle(message: Message<Row>, ctx: ConsumeContext): void {
    console.log(`import of line ${message.payload.line} failed, try ${message.reconsumeTimes + 1}`);
    ctx.delayLevelWhenNextConsume = 1; // retry after delay level 1 (1 s) instead of level 3 + reconsumeTimes
    throw new Error(`line ${message.payload.line} is malformed: ${message.payload.text}`);
  }
}

const deadLetters = new EventEmitter();

// The dead-letter topic is named after the group that gave up: '%DLQ%import-service'.
@Consumer({
  group: 'import-dlq-reader',
  topic: dlqTopicOf('import-service'),
  consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
})
class DeadLetterReader {
  handle(message: Message<Row>): void {
    console.log(`dead letter: line ${message.payload.line} (${message.payload.text}), keys ${message.keys.join(',')}`);
    deadLetters.emit('row', message.payload.line);
  }
}

async function main(): Promise<void> {
  const nameServer = process.env.ROCKETMQ_NAMESRV;
  const transport = nameServer ? rocketmqTransport({ nameServer }) : memoryTransport();

  const importer = await createConsumerApp({
    transport,
    consumers: [Importer],
    producer: { group: 'import-producer' },
  });
  // The app's events say when the broker is told to dead-letter the message.
  const events = new EventEmitter();
  importer.on('consumer.retry', (event) => {
    if (event.deadLetter) events.emit('dead-lettered');
  });
  const deadLettered = once(events, 'dead-lettered', { signal: AbortSignal.timeout(60_000) });
  await importer.start();
  await importer.ready();
  await importer.producer.send({ topic: 'imports', payload: { line: 7, text: 'n/a;;' }, keys: 'line-7' });
  await deadLettered;
  await importer.stop({ timeoutMs: 10_000 });

  // In a service, another process reads the dead letters, to repair and resend them or to alert.
  const reader = await createConsumerApp({ transport, consumers: [DeadLetterReader] });
  const read = once(deadLetters, 'row', { signal: AbortSignal.timeout(60_000) });
  await reader.start();
  await read;
  await reader.stop({ timeoutMs: 10_000 });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
