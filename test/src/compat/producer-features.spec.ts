import { createProducer, type Message, type OutgoingMessage } from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import { BrokerReleaseError } from '@mqkit/transport-rocketmq';
import { describe, expect, it } from 'vitest';
import { consumerClass } from '../support/fixtures';
import { useCompat } from './compat-context';
import { atLeast, compatTarget } from './compat-target';

const harness = useCompat();
const target = compatTarget();

/** A producer on the target with a generous send budget (the brokers share two cores with the suite). */
const producerOn = (extra: Partial<Parameters<typeof createProducer>[0]> = {}) =>
  createProducer({
    transport: harness().transport(),
    group: uniqueName('p'),
    profile: 'fast',
    sendMsgTimeout: 10_000,
    ...extra,
  });

/** A group reading `topic` from its start, recording each body with when it was handled. */
async function reader(topic: string): Promise<Map<string, { at: number; message: Message }>> {
  const seen = new Map<string, { at: number; message: Message }>();
  await harness().app([
    consumerClass(
      { group: uniqueName('gRead'), topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
      (m: Message) => void seen.set(m.body.toString(), { at: Date.now(), message: m }),
    ),
  ]);
  return seen;
}

/**
 * A message of a feature the target's release lacks: the send is refused before anything reaches the broker, with a
 * BrokerReleaseError naming the release the broker runs.
 */
async function refusedHere(prefix: string, message: Omit<OutgoingMessage, 'topic'>): Promise<void> {
  const topic = uniqueName(prefix);
  await harness().createTopic(topic, 1);
  const producer = await producerOn();
  try {
    const error = await producer.send({ topic, ...message }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BrokerReleaseError);
    expect((error as Error).message).toContain(`runs ${target.release.release}`);
  } finally {
    await producer.stop();
  }
}

describe('Transactions with a check-back', () => {
  it('UNKNOW is settled by the check-back: a commit is delivered, a rollback never', async () => {
    const topic = uniqueName('cTx');
    await harness().createTypedTopic(topic, 1, 'TRANSACTION');
    const seen = await reader(topic);
    const asked: string[] = [];
    const producer = await producerOn({
      transactionListener: {
        checkLocalTransaction: (m) => {
          asked.push(m.body.toString());
          // 'after' too: through rocketmq-proxy every transaction is settled by a check-back (see docs/producer.md).
          return m.body.toString() === 'rollback' ? 'ROLLBACK_MESSAGE' : 'COMMIT_MESSAGE';
        },
      },
    });
    try {
      for (const body of ['commit', 'rollback']) {
        const { state } = await producer.sendInTransaction({ topic, body }, () => 'UNKNOW');
        expect(state).toBe('UNKNOW');
      }
      await waitFor(() => asked.includes('commit') && asked.includes('rollback'), {
        timeoutMs: 60_000,
        message: () => `asked: ${asked.join(',')}`,
      });
      await waitFor(() => seen.has('commit'), { timeoutMs: 30_000, message: 'the committed message is delivered' });
      // Sent after the rollback was answered, to the topic's one queue: once handled, a wrongly committed rollback
      // would be too. A transaction as well: a topic of message.type TRANSACTION takes no other kind.
      await producer.sendInTransaction({ topic, body: 'after' }, () => 'COMMIT_MESSAGE');
      await waitFor(() => seen.has('after'), { timeoutMs: 30_000, message: 'the message after is delivered' });
      expect([...seen.keys()].sort()).toEqual(['after', 'commit']);
      // rocketmq-proxy drops an END_TRANSACTION it holds no record of (it records half messages only when it
      // relays a check), so even the committed one was settled by a check-back there; a broker took the commit.
      expect(asked.includes('after')).toBe(target.viaProxy);
    } finally {
      await producer.stop();
    }
  });
});

describe('Delay levels', () => {
  it('a message with delay level 2 is delivered after its delay, not before', async () => {
    const topic = uniqueName('cLevel');
    await harness().createTypedTopic(topic, 1, 'DELAY');
    const seen = await reader(topic);
    const producer = await producerOn();
    try {
      const sentAt = Date.now();
      await producer.send({ topic, body: 'later', delayTimeLevel: 2 });
      await waitFor(() => seen.has('later'), { timeoutMs: 30_000, message: 'the delayed message is delivered' });
      // The harness's delay levels are all 1 s; the broker's delay service ticks every 100 ms.
      expect(seen.get('later')!.at - sentAt).toBeGreaterThanOrEqual(900);
    } finally {
      await producer.stop();
    }
  });
});

describe('Timer messages (any delay)', () => {
  if (atLeast(target, '5.0.0'))
    it('a message with delayTimeSec 3 is delivered after 3 s, not before', async () => {
      const topic = uniqueName('cTimer');
      await harness().createTypedTopic(topic, 1, 'DELAY');
      const seen = await reader(topic);
      const producer = await producerOn();
      try {
        const sentAt = Date.now();
        await producer.send({ topic, body: 'later', delayTimeSec: 3 });
        await waitFor(() => seen.has('later'), { timeoutMs: 30_000, message: 'the timer message is delivered' });
        // The timer wheel's precision is 1 s (timerPrecisionMs): never more than that early.
        expect(seen.get('later')!.at - sentAt).toBeGreaterThanOrEqual(2_000);
      } finally {
        await producer.stop();
      }
    });
  else
    it(`refused: a timer message names the release the broker runs (${target.release.release})`, () =>
      refusedHere('cTimer', { body: 'later', delayTimeSec: 3 }));
});

describe('Priority messages', () => {
  if (atLeast(target, '5.4.0'))
    it('a message sent with a priority is read back with it', async () => {
      const topic = uniqueName('cPriority');
      await harness().createTypedTopic(topic, 1, 'PRIORITY');
      const seen = await reader(topic);
      const producer = await producerOn();
      try {
        await producer.send({ topic, body: 'urgent', priority: 7 });
        await waitFor(() => seen.has('urgent'), { timeoutMs: 30_000, message: 'the priority message is delivered' });
        expect(seen.get('urgent')!.message.priority).toBe(7);
      } finally {
        await producer.stop();
      }
    });
  else
    it(`refused: a priority message names the release the broker runs (${target.release.release})`, () =>
      refusedHere('cPriority', { body: 'urgent', priority: 7 }));
});

describe('Lite topics (sent; read back by consumers of their topic)', () => {
  if (atLeast(target, '5.5.0'))
    it('a message sent to a lite topic is read by a consumer of its parent topic, with its liteTopic', async () => {
      const topic = uniqueName('cLite');
      await harness().createTypedTopic(topic, 1, 'LITE');
      const seen = await reader(topic);
      const producer = await producerOn();
      try {
        await producer.send({ topic, body: 'to-a', liteTopic: 'order-a' });
        await producer.send({ topic, body: 'plain' });
        await waitFor(() => seen.has('to-a') && seen.has('plain'), {
          timeoutMs: 30_000,
          message: 'both messages are delivered',
        });
        expect(seen.get('to-a')!.message.liteTopic).toBe('order-a');
        expect(seen.get('plain')!.message.liteTopic).toBeUndefined();
      } finally {
        await producer.stop();
      }
    });
  else
    it(`refused: a lite topic message names the release the broker runs (${target.release.release})`, () =>
      refusedHere('cLite', { body: 'to-a', liteTopic: 'order-a' }));
});

describe('Compressed bodies (ZLIB, LZ4, ZSTD)', () => {
  it('a body of each compression type arrives intact', async () => {
    const topic = uniqueName('cCompress');
    await harness().createTopic(topic, 1);
    const seen = await reader(topic);
    const body = (type: string) => `${type}:${'compressible text '.repeat(600)}`;
    for (const compressType of ['ZLIB', 'LZ4', 'ZSTD'] as const) {
      const producer = await producerOn({ compressType });
      try {
        await producer.send({ topic, body: body(compressType) });
      } finally {
        await producer.stop();
      }
    }
    await waitFor(() => seen.size === 3, { timeoutMs: 30_000, message: () => `${seen.size}/3 bodies` });
    expect([...seen.keys()].sort()).toEqual(['LZ4', 'ZLIB', 'ZSTD'].map(body));
  });
});
