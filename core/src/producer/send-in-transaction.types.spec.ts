import { describe, expect, expectTypeOf, it } from 'vitest';
import { EventBus } from '../events/event-bus';
import type { Message } from '../model/message';
import type { MessageQueue } from '../model/message-queue';
import { record } from '../consumer/runtime.fixture';
import { Producer } from './producer';
import { resolveProducerOptions } from './producer-options';
import {
  defineTransactionListener,
  type LocalTransaction,
  type TransactionListener,
  type TransactionSendResult,
  type TransactionState,
} from './transaction';

/*
 * Type-level: this file is part of the core typecheck (tsconfig includes src/**), so each call below must compile as
 * a user writes it, and each `@ts-expect-error` must stay an error. The runtime part checks the states arrive.
 */

const queues: MessageQueue[] = [{ topic: 'T', brokerName: 'a', queueId: 0 }];

function transactional(
  transactionListener: TransactionListener = {
    checkLocalTransaction: (m) => (m.keys.length > 0 ? 'COMMIT_MESSAGE' : 'UNKNOW'),
  },
): { producer: Producer; ends: TransactionState[] } {
  const ends: TransactionState[] = [];
  const producer = new Producer({
    options: resolveProducerOptions({ group: 'p', transactionListener }),
    routes: { subscribeQueues: async () => queues, publishQueues: async () => queues },
    sender: {
      send: async (mq, record) => ({
        status: 'SEND_OK',
        msgId: record.properties.UNIQ_KEY!,
        offsetMsgId: 'O',
        messageQueue: mq,
        queueOffset: 0,
      }),
      endTransaction: async (request) => void ends.push(request.state),
    },
    events: new EventBus(),
  });
  return { producer, ends };
}

describe('sendInTransaction typing', () => {
  it('takes async callbacks that return a state literal, as the docs write them', async () => {
    const { producer, ends } = transactional();
    const order = { id: 'o-1' };
    const inserted: string[] = [];
    const db = { insert: async (o: { id: string }) => void inserted.push(o.id) };
    // docs/producer.md's example: a block body that awaits, then returns a literal.
    const result = await producer.sendInTransaction({ topic: 'T', payload: order, keys: order.id }, async () => {
      await db.insert(order);
      return 'COMMIT_MESSAGE';
    });
    expectTypeOf(result).toEqualTypeOf<TransactionSendResult>();
    // An expression body, no parameters (not context-sensitive: the case TypeScript widened to Promise<string>).
    await producer.sendInTransaction({ topic: 'T', body: 'x' }, async () => 'ROLLBACK_MESSAGE');
    // Several literals, with the parameters.
    await producer.sendInTransaction({ topic: 'T', body: 'x' }, async (_m, sendResult) =>
      sendResult.status === 'SEND_OK' ? 'UNKNOW' : 'ROLLBACK_MESSAGE',
    );
    // Synchronous, and a callback typed ahead with the exported type.
    await producer.sendInTransaction({ topic: 'T', body: 'x' }, () => 'COMMIT_MESSAGE');
    const typed: LocalTransaction<{ id: string }> = async () => 'COMMIT_MESSAGE' as TransactionState;
    await producer.sendInTransaction({ topic: 'T', payload: order }, typed);
    // A throw counts as UNKNOW; a callback that only throws type-checks too.
    await producer.sendInTransaction({ topic: 'T', body: 'x' }, async () => {
      throw new Error('db down');
    });
    expect(inserted).toEqual(['o-1']);
    expect(ends).toEqual([
      'COMMIT_MESSAGE',
      'ROLLBACK_MESSAGE',
      'UNKNOW',
      'COMMIT_MESSAGE',
      'COMMIT_MESSAGE',
      'UNKNOW',
    ]);
  });

  it('still refuses a string that is not a state, sync or async', () => {
    const { producer } = transactional();
    const refused = () => {
      // @ts-expect-error 'COMMITTED' is not a TransactionState
      void producer.sendInTransaction({ topic: 'T', body: 'x' }, async () => 'COMMITTED');
      // @ts-expect-error 'COMMITTED' is not a TransactionState
      void producer.sendInTransaction({ topic: 'T', body: 'x' }, () => 'COMMITTED');
      const wide: string = 'COMMIT_MESSAGE';
      // @ts-expect-error a plain string is not a TransactionState
      void producer.sendInTransaction({ topic: 'T', body: 'x' }, async () => wide);
    };
    expect(typeof refused).toBe('function');
  });
});

describe('transactionListener typing', () => {
  const db = { has: async (key: string | undefined) => key === 'o-1', open: async () => false };

  it('takes the inline forms with a parameter as they are, and every form through defineTransactionListener', async () => {
    // Inline, as the option's type: a parameter makes the callback context-sensitive, and its literals keep.
    const inline: TransactionListener[] = [
      { checkLocalTransaction: (m) => (m.keys.length > 0 ? 'COMMIT_MESSAGE' : 'UNKNOW') },
      { checkLocalTransaction: async (m) => ((await db.has(m.keys[0])) ? 'COMMIT_MESSAGE' : 'ROLLBACK_MESSAGE') },
      {
        async checkLocalTransaction(m) {
          return (await db.has(m.keys[0])) ? 'COMMIT_MESSAGE' : 'UNKNOW';
        },
      },
      // The workaround without the helper: the return type declared.
      { checkLocalTransaction: async (): Promise<TransactionState> => 'COMMIT_MESSAGE' },
    ];
    // Through the helper, every form, those TypeScript widens to Promise<string> inline included (async, no
    // parameter, one literal returned).
    const defined: TransactionListener[] = [
      defineTransactionListener({ checkLocalTransaction: async () => 'COMMIT_MESSAGE' }),
      defineTransactionListener({
        checkLocalTransaction: async () => ((await db.open()) ? 'UNKNOW' : 'ROLLBACK_MESSAGE'),
      }),
      defineTransactionListener({
        async checkLocalTransaction() {
          await db.open();
          return 'COMMIT_MESSAGE';
        },
      }),
      defineTransactionListener({ checkLocalTransaction: () => 'UNKNOW' }),
      defineTransactionListener({
        checkLocalTransaction: async (m: Message) => ((await db.has(m.keys[0])) ? 'COMMIT_MESSAGE' : 'UNKNOW'),
      }),
      defineTransactionListener({
        checkLocalTransaction: async () => {
          throw new Error('db down');
        },
      }),
    ];
    // A class declares its return type: `implements` gives its methods no contextual type.
    class Ledger implements TransactionListener {
      async checkLocalTransaction(m: Message): Promise<TransactionState> {
        return (await db.has(m.keys[0])) ? 'COMMIT_MESSAGE' : 'UNKNOW';
      }
    }
    const states: TransactionState[] = [];
    for (const listener of [...inline, ...defined, new Ledger()]) {
      const { producer } = transactional(listener);
      states.push(await producer.checkTransaction(record(0, { properties: { KEYS: 'o-1' } })));
    }
    expect(states).toEqual([
      'COMMIT_MESSAGE',
      'COMMIT_MESSAGE',
      'COMMIT_MESSAGE',
      'COMMIT_MESSAGE',
      'COMMIT_MESSAGE',
      'ROLLBACK_MESSAGE',
      'COMMIT_MESSAGE',
      'UNKNOW',
      'COMMIT_MESSAGE',
      'UNKNOW',
      'COMMIT_MESSAGE',
    ]);
  });

  it('refuses a string that is not a state; inline, an async callback without a parameter is still refused', () => {
    const refused = () => {
      const wide: string = 'COMMIT_MESSAGE';
      // @ts-expect-error 'COMMITTED' is not a TransactionState
      defineTransactionListener({ checkLocalTransaction: async () => 'COMMITTED' });
      // @ts-expect-error 'COMMITTED' is not a TransactionState
      defineTransactionListener({ checkLocalTransaction: () => 'COMMITTED' });
      // @ts-expect-error a plain string is not a TransactionState
      defineTransactionListener({ checkLocalTransaction: async () => wide });
      // TypeScript's widening (microsoft/TypeScript#30185), why the helper exists: when this stops being an error,
      // docs/producer.md and TransactionListener's TSDoc can drop the workaround.
      // @ts-expect-error Promise<string> is not assignable to TransactionState | Promise<TransactionState>
      const inline: TransactionListener = { checkLocalTransaction: async () => 'COMMIT_MESSAGE' };
      return inline;
    };
    expect(typeof refused).toBe('function');
  });
});
