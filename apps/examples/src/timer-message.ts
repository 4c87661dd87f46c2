/**
 * A timer message (RocketMQ 5): the broker holds it and delivers it once its delay has passed, never early. One
 * reminder is sent with a 2 s delay; the consumer prints how long after the send it arrived, and the program stops.
 *
 * On the embedded broker (no server to run):
 *   node dist/timer-message.js
 * On a real RocketMQ 5 cluster: the broker needs timerWheelEnable=true (RocketMQ 5's default). Create the topic,
 * then give the name server. The broker delivers up to its timerPrecisionMs (1 s) late.
 *   mqadmin updateTopic -n 127.0.0.1:9876 -c DefaultCluster -t reminders
 *   ROCKETMQ_NAMESRV=127.0.0.1:9876 node dist/timer-message.js
 *
 * Guide: docs/producer.md, "Timer messages".
 */
import 'reflect-metadata';
import { EventEmitter, once } from 'node:events';
import { Consumer, createConsumerApp, type Message } from '@mqkit/core';
import { memoryTransport } from '@mqkit/transport-memory';
import { rocketmqTransport } from '@mqkit/transport-rocketmq';

interface Reminder {
  id: string;
  sentAt: number;
}

const DELAY_MS = 2_000;
const delivered = new EventEmitter();

@Consumer({ group: 'reminder-service', topic: 'reminders', consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' })
class Reminders {
  handle(message: Message<Reminder>): void {
    const after = Date.now() - message.payload.sentAt;
    console.log(`reminder ${message.payload.id} arrived ${after} ms after its send`);
    if (after < DELAY_MS) {
      console.error(`reminder ${message.payload.id} came before its ${DELAY_MS} ms delay`);
      process.exitCode = 1;
    }
    delivered.emit('reminder', message.payload.id);
  }
}

async function main(): Promise<void> {
  const nameServer = process.env.ROCKETMQ_NAMESRV;
  const transport = nameServer ? rocketmqTransport({ nameServer }) : memoryTransport();

  const done = once(delivered, 'reminder', { signal: AbortSignal.timeout(30_000) });
  const app = await createConsumerApp({ transport, consumers: [Reminders], producer: { group: 'reminder-producer' } });
  await app.start();
  await app.ready();

  // Or deliverTimeMs (an epoch time) or delayTimeSec; one of them per message, not in a batch.
  await app.producer.send({ topic: 'reminders', payload: { id: 'R-1', sentAt: Date.now() }, delayTimeMs: DELAY_MS });
  console.log(`sent reminder R-1, due in ${DELAY_MS} ms`);
  await done;

  await app.stop({ timeoutMs: 10_000 });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
