/**
 * Transactional messages: the producer sends a half message, runs the local transaction, and commits or rolls the
 * message back by its outcome. Consumers see only committed messages. When the outcome is unknown (UNKNOW), the
 * broker later asks the producer group's `checkLocalTransaction`, which looks the outcome up. Three payments: P-1
 * commits, P-2 rolls back, P-3 answers UNKNOW and is committed by the check-back. It prints what the consumer
 * gets (P-1 and P-3) and stops.
 *
 * On the embedded broker (no server to run), told to check half messages after 1 s instead of RocketMQ's
 * transactionTimeOut (6 s) and transactionCheckInterval (30 s), so the check-back comes within seconds:
 *   node dist/transaction.js
 * On a real RocketMQ cluster: create the topic, then give the name server. The broker's own settings apply, so
 * P-3 arrives up to a minute later.
 *   mqadmin updateTopic -n 127.0.0.1:9876 -c DefaultCluster -t payments
 *   ROCKETMQ_NAMESRV=127.0.0.1:9876 node dist/transaction.js
 *
 * Guide: docs/producer.md, "Transactional messages".
 */
import 'reflect-metadata';
import { EventEmitter, once } from 'node:events';
import { Consumer, createConsumerApp, createProducer, type Message, type TransactionState } from '@mqkit/core';
import { EmbeddedBroker, memoryTransport } from '@mqkit/transport-memory';
import { rocketmqTransport } from '@mqkit/transport-rocketmq';

interface Payment {
  id: string;
  amount: number;
}

/** The local database the transaction writes to; the check-back reads it. */
const ledger = new Map<string, Payment>();
const paid = new EventEmitter();

@Consumer({ group: 'payment-notifier', topic: 'payments', consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' })
class PaymentNotifier {
  handle(message: Message<Payment>): void {
    console.log(`notified payment ${message.payload.id}`);
    paid.emit('payment', message.payload.id);
  }
}

async function main(): Promise<void> {
  const nameServer = process.env.ROCKETMQ_NAMESRV;
  const transport = nameServer
    ? rocketmqTransport({ nameServer })
    : memoryTransport({
        broker: new EmbeddedBroker({ transaction: { transactionTimeOutMs: 1_000, transactionCheckIntervalMs: 1_000 } }),
      });

  const committed = ['P-1', 'P-3'];
  const pending = new Set(committed);
  const done = once(paid, 'done', { signal: AbortSignal.timeout(120_000) });
  paid.on('payment', (id: string) => {
    if (!committed.includes(id)) {
      console.error(`payment ${id} was rolled back, yet it was delivered`);
      process.exitCode = 1;
    }
    pending.delete(id);
    if (pending.size === 0) paid.emit('done');
  });

  const app = await createConsumerApp({ transport, consumers: [PaymentNotifier] });
  await app.start();
  await app.ready();

  const producer = await createProducer({
    transport,
    group: 'payments-tx',
    // The broker's check-back, for a half message whose outcome it does not know. Any live producer of the group
    // may be asked, so in a service the answer comes from the database the local transaction wrote (here a Map).
    transactionListener: {
      checkLocalTransaction: (message: Message<Payment>): TransactionState => {
        const state = ledger.has(message.keys[0] ?? '') ? 'COMMIT_MESSAGE' : 'ROLLBACK_MESSAGE';
        console.log(`checked back payment ${message.payload.id}: ${state}`);
        return state;
      },
    },
  });

  const outcomes: Record<string, TransactionState> = {
    'P-1': 'COMMIT_MESSAGE',
    'P-2': 'ROLLBACK_MESSAGE',
    'P-3': 'UNKNOW',
  };
  for (const [id, outcome] of Object.entries(outcomes)) {
    const payment: Payment = { id, amount: 25 };
    const { state } = await producer.sendInTransaction(
      { topic: 'payments', payload: payment, keys: id },
      // The local transaction: a throw counts as UNKNOW, so the broker asks checkLocalTransaction later.
      async () => {
        if (outcome !== 'ROLLBACK_MESSAGE') ledger.set(id, payment); // P-3 is stored, but says UNKNOW
        return outcome;
      },
    );
    console.log(`sent payment ${id}: ${state}`);
  }
  await done;

  await producer.stop();
  await app.stop({ timeoutMs: 10_000 });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
