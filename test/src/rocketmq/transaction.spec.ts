import { fork } from 'node:child_process';
import { join } from 'node:path';
import {
  createProducer,
  createPullConsumer,
  type Message,
  type MessageQueue,
  type TransactionState,
} from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import type { RocketMqCluster } from '@mqkit/transport-rocketmq/testing';
import { describe, expect, it } from 'vitest';
import { consumerClass } from '../support/fixtures';
import { RocketMqHarness, useRocketMqHarness } from '../support/rocketmq-fixtures';

let cluster: RocketMqCluster;
let harness: RocketMqHarness;
useRocketMqHarness((c, h) => {
  cluster = c;
  harness = h;
});

describe('transactional messages on a real broker (checks every 1 s after 2 s, at most 3)', () => {
  it('commit is delivered and rollback never; UNKNOW is settled by a check-back that another producer of the group answers once the sender is gone; a message UNKNOW past the check limit goes to TRANS_CHECK_MAX_TIME_TOPIC', async () => {
    const topic = uniqueName('tx');
    const group = uniqueName('txp');
    await harness.createTopic(topic, 2);
    const delivered: string[] = [];
    await harness.app([
      consumerClass(
        { group: uniqueName('g'), topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
        (m: Message) => void delivered.push(m.body.toString()),
      ),
    ]);
    const producer = (instanceName: string, answer: (body: string) => TransactionState, asked: string[]) =>
      createProducer({
        transport: harness.transport(),
        group,
        profile: 'fast',
        instanceName,
        sendMsgTimeout: 10_000,
        transactionListener: {
          checkLocalTransaction: (m) => {
            asked.push(m.body.toString());
            return answer(m.body.toString());
          },
        },
      });
    const senderAsked: string[] = [];
    const sender = await producer(uniqueName('sender'), () => 'UNKNOW', senderAsked);
    const states: TransactionState[] = [];
    for (const [body, state] of [
      ['commit', 'COMMIT_MESSAGE'],
      ['rollback', 'ROLLBACK_MESSAGE'],
      ['later-commit', 'UNKNOW'],
      ['forever', 'UNKNOW'],
    ] as const) {
      const { sendResult, state: ended } = await sender.sendInTransaction({ topic, body }, (_m, result) => {
        expect(result.status).toBe('SEND_OK');
        return state;
      });
      expect(sendResult.messageQueue.topic).toBe(topic);
      states.push(ended);
    }
    expect(states).toEqual(['COMMIT_MESSAGE', 'ROLLBACK_MESSAGE', 'UNKNOW', 'UNKNOW']);
    await waitFor(() => delivered.includes('commit'), { timeoutMs: 20_000 });
    // The sender leaves before any check (the first comes 2 s after the half message); another instance answers.
    await sender.stop();
    const otherAsked: string[] = [];
    const other = await producer(
      uniqueName('other'),
      (body) => (body === 'later-commit' ? 'COMMIT_MESSAGE' : 'UNKNOW'),
      otherAsked,
    );
    try {
      // The broker asks only producers that heartbeated it: one send tells this client the route.
      await other.sendInTransaction({ topic, body: 'other-rollback' }, () => 'ROLLBACK_MESSAGE');
      await waitFor(() => delivered.includes('later-commit'), {
        timeoutMs: 30_000,
        message: () => `asked: ${otherAsked.join(',')}`,
      });
      // Past 3 checks answered UNKNOW, the broker keeps the half message where no consumer reads.
      const reader = await createPullConsumer({
        transport: harness.transport(),
        group: uniqueName('maxcheck'),
        profile: 'fast',
        consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      });
      try {
        const found: string[] = [];
        await waitFor(
          async () => {
            const queues = await reader.queuesOf('TRANS_CHECK_MAX_TIME_TOPIC').catch(() => []);
            if (queues.length === 0) return false;
            if (reader.assignment().length !== queues.length) await reader.assign(queues);
            found.push(
              ...(await reader.poll({ timeoutMs: 500 }))
                .filter((m) => m.properties.REAL_TOPIC === topic || m.topic === topic)
                .map((m) => m.body.toString()),
            );
            return found.includes('forever');
          },
          { timeoutMs: 45_000, intervalMs: 200, message: () => `asked: ${otherAsked.join(',')}` },
        );
      } finally {
        await reader.close();
      }
      expect(otherAsked.filter((b) => b === 'forever').length).toBeGreaterThanOrEqual(1);
      expect(senderAsked).toEqual([]);
      expect(delivered.sort(), JSON.stringify(delivered)).toEqual(['commit', 'later-commit']);
    } finally {
      await other.stop();
    }
  }, 120_000);

  it('a producer on the default profile settles its own UNKNOW transactions by check-back: a commit is delivered, a rollback never', async () => {
    const topic = uniqueName('txdefault');
    const group = uniqueName('txp');
    // One queue on each broker: the sends go round robin, so each broker stores half messages to check.
    await harness.createTopic(topic, 1);
    const delivered: string[] = [];
    await harness.app([
      consumerClass(
        { group: uniqueName('g'), topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
        (m: Message) => void delivered.push(m.body.toString()),
      ),
    ]);
    const asked: string[] = [];
    // No profile: the default one, whose first interval heartbeat comes 30 s after the start, long after the
    // broker has checked these half messages its three times (2 s after each, then every second). Only the
    // heartbeat sent when the first send's route names a broker registers the group there in time.
    const producer = await createProducer({
      transport: harness.transport(),
      group,
      instanceName: uniqueName('default'),
      sendMsgTimeout: 10_000,
      transactionListener: {
        checkLocalTransaction: (m) => {
          const body = m.body.toString();
          asked.push(body);
          return body.startsWith('commit') ? 'COMMIT_MESSAGE' : 'ROLLBACK_MESSAGE';
        },
      },
    });
    try {
      const rolledBackOn = new Map<string, MessageQueue>();
      for (const body of ['commit-1', 'rollback-1', 'commit-2', 'rollback-2']) {
        const { state, sendResult } = await producer.sendInTransaction({ topic, body }, () => 'UNKNOW');
        expect(state).toBe('UNKNOW');
        if (body.startsWith('rollback')) rolledBackOn.set(sendResult.messageQueue.brokerName, sendResult.messageQueue);
      }
      await waitFor(() => ['commit-1', 'commit-2', 'rollback-1', 'rollback-2'].every((b) => asked.includes(b)), {
        timeoutMs: 30_000,
        message: () => `asked: ${asked.join(',')}; delivered: ${delivered.join(',')}`,
      });
      await waitFor(() => delivered.includes('commit-1') && delivered.includes('commit-2'), {
        timeoutMs: 30_000,
        message: () => `delivered: ${delivered.join(',')}`,
      });
      // Sent after the rollbacks were answered, to their queues: once these are handled, a rolled-back message that
      // was wrongly committed would have been handled too.
      const after = [...rolledBackOn.values()].map((mq) => `after-${mq.brokerName}`);
      for (const mq of rolledBackOn.values())
        await producer.send({ topic, body: `after-${mq.brokerName}` }, { queue: mq });
      await waitFor(() => after.every((b) => delivered.includes(b)), {
        timeoutMs: 30_000,
        message: () => `delivered: ${delivered.join(',')}`,
      });
      expect([...delivered].sort()).toEqual([...after, 'commit-1', 'commit-2'].sort());
    } finally {
      await producer.stop();
    }
  }, 120_000);

  it('the sending process SIGKILLed with a transaction open: another producer of the group answers the check and the message is delivered once', async () => {
    const topic = uniqueName('txkill');
    const group = uniqueName('txp');
    await harness.createTopic(topic, 2);
    const delivered: string[] = [];
    await harness.app([
      consumerClass(
        { group: uniqueName('g'), topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
        (m: Message) => void delivered.push(m.body.toString()),
      ),
    ]);
    const child = fork(join(__dirname, 'tx-producer.fixture.cjs'), [], {
      env: {
        ...process.env,
        NAMESRV: cluster.namesrvAddr,
        TOPIC: topic,
        GROUP: group,
        INSTANCE: uniqueName('doomed'),
        BODY: 'orphan',
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const exited = new Promise<unknown>((resolve) => child.on('exit', resolve));
    const sent = await new Promise<{ type: string; state?: string; message?: string }>((resolve) =>
      child.once('message', resolve as (m: unknown) => void),
    );
    expect(sent, sent.message).toMatchObject({ type: 'sent', state: 'UNKNOW' });
    child.kill('SIGKILL');
    await exited;
    const asked: string[] = [];
    const rescuer = await createProducer({
      transport: harness.transport(),
      group,
      profile: 'fast',
      instanceName: uniqueName('rescuer'),
      sendMsgTimeout: 10_000,
      transactionListener: {
        checkLocalTransaction: (m) => {
          asked.push(m.body.toString());
          return 'COMMIT_MESSAGE';
        },
      },
    });
    try {
      // A send teaches the new instance the route, and its heartbeat registers the group with the brokers.
      await rescuer.sendInTransaction({ topic, body: 'rescuer' }, () => 'COMMIT_MESSAGE');
      await waitFor(() => delivered.includes('orphan'), {
        timeoutMs: 30_000,
        message: () => `asked: ${asked.join(',')}`,
      });
      expect(asked).toContain('orphan');
      expect(delivered.filter((b) => b === 'orphan')).toHaveLength(1);
    } finally {
      await rescuer.stop();
    }
  }, 90_000);
});
