import { createProducer, mqKey } from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import { memoryTransport } from '@mqkit/transport-memory';
import { fastBroker } from '@mqkit/transport-memory/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { Harness, consumerClass } from '../support/fixtures';

let harness: Harness;
afterEach(async () => harness?.close());

describe('producer on the embedded broker', () => {
  it('round robin over 2 brokers x 4 queues puts N/8 (+/- 1) on every queue', async () => {
    harness = new Harness(fastBroker({ brokerNames: ['broker-a', 'broker-b'], autoCreateTopic: false }));
    const topic = uniqueName('T');
    harness.broker.createTopic({ topic, queues: 4 });
    const producer = await createProducer({
      transport: memoryTransport({ broker: harness.broker }),
      group: uniqueName('p'),
    });
    const n = 10_003;
    for (let i = 0; i < n; i++) await producer.send({ topic, body: `m${i}` });
    await producer.stop();
    const counts = ['broker-a', 'broker-b'].flatMap((b) =>
      [0, 1, 2, 3].map((q) => harness.broker.messages(topic, b, q).length),
    );
    expect(counts.reduce((a, b) => a + b, 0)).toBe(n);
    for (const c of counts) expect(Math.abs(c - n / 8)).toBeLessThanOrEqual(1);
  }, 30_000);

  it('ordered: 10,000 messages over 100 keys, consumed by an ORDERLY group of 3, arrive per key in send order', async () => {
    harness = new Harness(fastBroker({ brokerNames: ['broker-a', 'broker-b'] }));
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 4 });
    const perKey = new Map<string, number[]>();
    const queueOfKey = new Map<string, string>();
    let total = 0;
    const Handler = consumerClass(
      { group, topic, consumeMode: 'ORDERLY', consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
      (m) => {
        const key = m.keys[0]!;
        perKey.set(key, [...(perKey.get(key) ?? []), m.payload.seq]);
        const q = mqKey(m.messageQueue);
        expect(queueOfKey.get(key) ?? q).toBe(q);
        queueOfKey.set(key, q);
        total++;
      },
    );
    await Promise.all([harness.app([Handler]), harness.app([Handler]), harness.app([Handler])]);
    const producer = await createProducer({
      transport: memoryTransport({ broker: harness.broker }),
      group: uniqueName('p'),
    });
    const sent = new Map<string, number[]>();
    for (let seq = 0; seq < 10_000; seq++) {
      const key = `order-${seq % 100}`;
      await producer.send({ topic, payload: { seq }, keys: key }, { shardingKey: key });
      sent.set(key, [...(sent.get(key) ?? []), seq]);
    }
    await producer.stop();
    await waitFor(() => total >= 10_000, { timeoutMs: 30_000 });
    expect(perKey.size).toBe(100);
    for (const [key, seqs] of sent) expect(perKey.get(key)).toEqual(seqs);
  }, 60_000);

  it('compressed bodies and batches arrive intact', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 2 });
    const bodies: string[] = [];
    const Handler = consumerClass(
      { group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
      (m) => void bodies.push(m.body.toString()),
    );
    await harness.app([Handler]);
    const producer = await createProducer({
      transport: memoryTransport({ broker: harness.broker }),
      group: uniqueName('p'),
    });
    const big = 'z'.repeat(10_000);
    await producer.send({ topic, body: big });
    const batch = await producer.sendBatch([1, 2, 3].map((i) => ({ topic, body: `b${i}` })));
    expect(batch.map((r) => r.queueOffset)).toEqual([0, 1, 2].map((i) => batch[0]!.queueOffset + i));
    expect(new Set(batch.map((r) => r.offsetMsgId)).size).toBe(3);
    await producer.stop();
    await waitFor(() => bodies.length === 4);
    expect(bodies.sort()).toEqual(['b1', 'b2', 'b3', big].sort());
  });
});
