import { createProducer, type Message, type TransactionState } from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import { memoryTransport } from '@mqkit/transport-memory';
import { fastBroker } from '@mqkit/transport-memory/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { Harness, consumerClass } from '../support/fixtures';

let harness: Harness;
afterEach(async () => harness?.close());

describe('transactional messages on the embedded broker', () => {
  it('commit is delivered, rollback never; UNKNOW is settled by a check-back, answered by another producer of the group once the sender is gone; a message UNKNOW past the check limit is never delivered', async () => {
    // RocketMQ's 6 s timeout and 30 s interval, scaled by 0.01: a check every 0.3 s; at most 3 checks.
    harness = new Harness(fastBroker({ transaction: { transactionCheckMax: 3 } }));
    const topic = uniqueName('T');
    const group = uniqueName('txp');
    harness.broker.createTopic({ topic, queues: 2 });
    const delivered: string[] = [];
    await harness.app([
      consumerClass(
        { group: uniqueName('g'), topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
        (m: Message) => void delivered.push(m.body.toString()),
      ),
    ]);
    const checked: string[] = [];
    const answers = new Map<string, TransactionState>([
      ['later-commit', 'COMMIT_MESSAGE'],
      ['forever', 'UNKNOW'],
    ]);
    const transport = () => memoryTransport({ broker: harness.broker });
    const sender = await createProducer({
      transport: transport(),
      group,
      profile: 'fast',
      transactionListener: { checkLocalTransaction: () => 'UNKNOW' },
    });
    const results = [];
    for (const [body, state] of [
      ['commit', 'COMMIT_MESSAGE'],
      ['rollback', 'ROLLBACK_MESSAGE'],
      ['later-commit', 'UNKNOW'],
      ['forever', 'UNKNOW'],
    ] as const) {
      results.push(await sender.sendInTransaction({ topic, body }, () => state));
    }
    const thrown = await sender.sendInTransaction({ topic, body: 'thrown' }, () => {
      throw new Error('local failure');
    });
    expect(results.map((r) => r.state)).toEqual(['COMMIT_MESSAGE', 'ROLLBACK_MESSAGE', 'UNKNOW', 'UNKNOW']);
    expect(thrown.state).toBe('UNKNOW');
    expect(results.every((r) => r.sendResult.status === 'SEND_OK' && r.sendResult.messageQueue.topic === topic)).toBe(
      true,
    );
    await waitFor(() => delivered.includes('commit'));
    // The sender leaves; another instance of the group answers the checks (the sender would have said UNKNOW).
    await sender.stop();
    const other = await createProducer({
      transport: transport(),
      group,
      profile: 'fast',
      instanceName: uniqueName('other'),
      transactionListener: {
        checkLocalTransaction: (m) => {
          checked.push(m.body.toString());
          return answers.get(m.body.toString()) ?? 'ROLLBACK_MESSAGE';
        },
      },
    });
    try {
      await waitFor(() => delivered.includes('later-commit'), { timeoutMs: 10_000 });
      await waitFor(() => harness.broker.openTransactions === 0, { timeoutMs: 10_000 });
      expect(harness.broker.messages('TRANS_CHECK_MAX_TIME_TOPIC').map((m) => m.body.toString())).toEqual(['forever']);
      expect(checked.filter((b) => b === 'forever')).toHaveLength(3);
      expect(checked).toContain('thrown');
      expect(delivered.sort()).toEqual(['commit', 'later-commit']);
    } finally {
      await other.stop();
    }
  });

  it('refuses a transactional send without a transactionListener, and a delayed one', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    harness.broker.createTopic({ topic, queues: 1 });
    const plain = await createProducer({
      transport: memoryTransport({ broker: harness.broker }),
      group: uniqueName('p'),
    });
    await expect(plain.sendInTransaction({ topic, body: 'x' }, () => 'COMMIT_MESSAGE')).rejects.toMatchObject({
      rule: 'transaction.listener',
    });
    await plain.stop();
    const tx = await createProducer({
      transport: memoryTransport({ broker: harness.broker }),
      group: uniqueName('p'),
      transactionListener: { checkLocalTransaction: () => 'COMMIT_MESSAGE' },
    });
    await expect(
      tx.sendInTransaction({ topic, body: 'x', delayTimeLevel: 2 }, () => 'COMMIT_MESSAGE'),
    ).rejects.toMatchObject({ rule: 'transaction.delay' });
    await tx.stop();
    expect(harness.broker.openTransactions).toBe(0);
  });
});
