import {
  MessageValidationError,
  createConsumerApp,
  mqKey,
  type ConsumerApp,
  type Message,
  type OutgoingMessage,
  type SendResult,
} from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import type { RocketMqCluster } from '@mqkit/transport-rocketmq/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerClass } from '../support/fixtures';
import {
  BrokerProbe,
  clusterProducer,
  freshTopic,
  perBroker,
  producerCluster,
  transportFor,
} from './producer-cluster.fixture';

let cluster: RocketMqCluster;
let release: () => Promise<void>;
let probe: BrokerProbe;
beforeAll(async () => {
  ({ cluster, release } = await producerCluster());
  probe = await BrokerProbe.open(cluster);
}, 300_000);
afterAll(async () => {
  await probe?.close();
  await release?.();
}, 60_000);

describe('producer on a real cluster', () => {
  it('round robin over 2 brokers x 4 queues puts N/8 (+/- 1) on every queue', async () => {
    const topic = await freshTopic(cluster, 'spread', 4);
    const producer = await clusterProducer(cluster);
    const n = 2_003;
    const results: SendResult[] = [];
    try {
      for (let i = 0; i < n; i++) results.push(await producer.send({ topic, body: `m${i}` }));
    } finally {
      await producer.stop();
    }
    const stored = await probe.stored(topic);
    expect([...stored.keys()].sort()).toEqual(
      ['broker-a', 'broker-b'].flatMap((b) => [0, 1, 2, 3].map((q) => `${b}:${q}`)),
    );
    expect([...stored.values()].reduce((a, b) => a + b, 0)).toBe(n);
    for (const [queue, count] of stored) expect(Math.abs(count - n / 8), queue).toBeLessThanOrEqual(1);
    // The results say the same as the brokers.
    const reported = new Map<string, number>();
    for (const r of results)
      reported.set(
        `${r.messageQueue.brokerName}:${r.messageQueue.queueId}`,
        (reported.get(`${r.messageQueue.brokerName}:${r.messageQueue.queueId}`) ?? 0) + 1,
      );
    expect(reported).toEqual(stored);
  }, 60_000);

  it('ordered: 10,000 messages over 100 keys, consumed by an ORDERLY group of 3, arrive per key in send order', async () => {
    const topic = await freshTopic(cluster, 'ordered', 4);
    const group = uniqueName('gOrdered');
    const perKey = new Map<string, number[]>();
    const queueOfKey = new Map<string, string>();
    const wrongQueue: string[] = [];
    let total = 0;
    const Handler = consumerClass(
      { group, topic, consumeMode: 'ORDERLY', consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
      (m: Message<{ seq: number }>) => {
        const key = m.keys[0]!;
        const seqs = perKey.get(key) ?? [];
        seqs.push(m.payload.seq);
        perKey.set(key, seqs);
        const q = mqKey(m.messageQueue);
        if ((queueOfKey.get(key) ?? q) !== q) wrongQueue.push(`${key}: ${queueOfKey.get(key)} then ${q}`);
        queueOfKey.set(key, q);
        total++;
      },
    );
    const apps: ConsumerApp[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        const app = await createConsumerApp({
          transport: transportFor(cluster),
          consumers: [Handler],
          profile: 'fast',
          instanceName: uniqueName(`ordered${i}`),
        });
        apps.push(app);
        await app.start();
      }
      const producer = await clusterProducer(cluster);
      const sent = new Map<string, number[]>();
      const keys = Array.from({ length: 100 }, (_, k) => `order-${k}`);
      for (const key of keys) sent.set(key, []);
      try {
        // One chain per key: a key's next message is sent once the previous one is stored (that is what makes
        // "send order" well defined); the 100 keys go concurrently.
        await Promise.all(
          keys.map(async (key, k) => {
            for (let seq = k; seq < 10_000; seq += 100) {
              await producer.send({ topic, payload: { seq }, keys: key }, { shardingKey: key });
              sent.get(key)!.push(seq);
            }
          }),
        );
      } finally {
        await producer.stop();
      }
      await waitFor(() => total >= 10_000, { timeoutMs: 90_000, message: () => `consumed ${total} of 10000` });
      expect(total).toBe(10_000);
      expect(wrongQueue).toEqual([]);
      expect(perKey.size).toBe(100);
      for (const [key, seqs] of sent) expect(perKey.get(key), key).toEqual(seqs);
      // Every queue of both brokers carried some keys.
      expect(new Set(queueOfKey.values()).size).toBe(8);
    } finally {
      await Promise.all(apps.map((a) => a.stop({ timeoutMs: 5_000 })));
    }
  }, 180_000);

  it("sendBatch splits a list over the broker's 4 MiB into batches that fit, in order, with one result per message", async () => {
    const topic = await freshTopic(cluster, 'split', 4);
    const producer = await clusterProducer(cluster);
    // Five 1 MiB bodies: three fit one 4 MiB batch, so the list goes as two batches.
    const bodies = [0, 1, 2, 3, 4].map((i) => Buffer.alloc(1024 * 1024, 0x61 + i));
    let results: SendResult[];
    try {
      results = await producer.sendBatch(bodies.map((body) => ({ topic, body })));
    } finally {
      await producer.stop();
    }
    expect(results).toHaveLength(5);
    const queues = new Set(results.map((r) => mqKey(r.messageQueue)));
    expect(queues.size).toBe(2);
    // Within a batch: one queue, consecutive offsets; the stored messages are the bodies in the list's order.
    const stored = await probe.stored(topic);
    expect([...stored.values()].reduce((a, b) => a + b, 0)).toBe(5);
    const received: Message[] = [];
    const Handler = consumerClass(
      { group: uniqueName('split'), topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
      (m: Message<{ seq: number }>) => void received.push(m),
    );
    const app = await createConsumerApp({
      transport: transportFor(cluster),
      consumers: [Handler],
      profile: 'fast',
      instanceName: uniqueName('split'),
    });
    await app.start();
    try {
      await waitFor(() => received.length === 5, { timeoutMs: 30_000 });
    } finally {
      await app.stop({ timeoutMs: 5_000 });
    }
    for (const [i, r] of results.entries()) {
      const m = received.find((x) => x.msgId === r.msgId)!;
      expect(m.body.equals(bodies[i]!), `body ${i}`).toBe(true);
      expect([m.queueOffset, m.brokerName, m.queueId]).toEqual([
        r.queueOffset,
        r.messageQueue.brokerName,
        r.messageQueue.queueId,
      ]);
    }
  }, 90_000);

  describe('validation: each rule rejects with its message and sends nothing', () => {
    let topic: string;
    beforeAll(async () => {
      topic = await freshTopic(cluster, 'invalid', 2);
    });

    const big = Buffer.alloc(4 * 1024 * 1024 + 1, 0x61);
    const single: [rule: string, message: RegExp, build: (topic: string) => OutgoingMessage][] = [
      ['topic.blank', /^The specified topic is blank$/, () => ({ topic: ' ', body: 'x' })],
      [
        'topic.length',
        /^The specified topic is longer than topic max length 127/,
        () => ({ topic: 'x'.repeat(128), body: 'x' }),
      ],
      ['topic.chars', /^The specified topic \[a\.b\] contains illegal characters/, () => ({ topic: 'a.b', body: 'x' })],
      [
        'topic.reserved',
        /^Sending message to topic\[SCHEDULE_TOPIC_XXXX\] is forbidden$/,
        () => ({ topic: 'SCHEDULE_TOPIC_XXXX', body: 'x' }),
      ],
      ['body.null', /^the message body is null/, (t) => ({ topic: t })],
      ['body.empty', /^the message body length is zero$/, (t) => ({ topic: t, body: '' })],
      ['body.size', /^the message body size over max value, MAX: 4194304/, (t) => ({ topic: t, body: big })],
      [
        'property.reserved',
        /^The Property<UNIQ_KEY> is used by system/,
        (t) => ({ topic: t, body: 'x', properties: { UNIQ_KEY: 'mine' } }),
      ],
      [
        'property.blank',
        /^The name or value of property can not be null or blank string/,
        (t) => ({ topic: t, body: 'x', properties: { k: ' ' } }),
      ],
      ['property.chars', /separator characters/, (t) => ({ topic: t, body: 'x', properties: { k: 'a\u0001b' } })],
      ['delay.level', /^delayTimeLevel must be an integer >= 0/, (t) => ({ topic: t, body: 'x', delayTimeLevel: -1 })],
    ];
    const batches: [rule: string, message: RegExp, build: (topic: string) => OutgoingMessage[]][] = [
      ['batch.empty', /^a batch needs at least one message$/, () => []],
      [
        'batch.delay',
        /^TimeDelayLevel is not supported for batching$/,
        (t) => [{ topic: t, body: 'a', delayTimeLevel: 2 }],
      ],
      ['batch.retry-topic', /^Retry Group is not supported for batching$/, () => [{ topic: '%RETRY%g', body: 'a' }]],
      [
        'batch.topic',
        /^The topic of the messages in one batch should be the same$/,
        (t) => [
          { topic: t, body: 'a' },
          { topic: `${t}x`, body: 'b' },
        ],
      ],
      [
        'batch.wait',
        /^The waitStoreMsgOK of the messages in one batch should the same$/,
        (t) => [
          { topic: t, body: 'a' },
          { topic: t, body: 'b', waitStoreMsgOK: false },
        ],
      ],
      // Within the body limit, over it once encoded in a batch: a batch cannot carry it, split or not.
      [
        'batch.size',
        /^a message of the batch is \d+ bytes encoded, over the max message size 4194304$/,
        (t) => [
          { topic: t, body: 'a' },
          { topic: t, body: big.subarray(0, 4 * 1024 * 1024 - 8) },
        ],
      ],
    ];

    async function rejection(attempt: () => Promise<unknown>): Promise<MessageValidationError> {
      const error = await attempt().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(MessageValidationError);
      return error as MessageValidationError;
    }

    it.each(single)('send: %s', async (rule, text, build) => {
      const producer = await clusterProducer(cluster);
      let sendEvents = 0;
      producer.events.on('producer.send', () => sendEvents++);
      try {
        for (const attempt of [
          () => producer.send(build(topic)),
          () => producer.sendOneway(build(topic)),
          () => producer.send(build(topic), { shardingKey: 'k' }),
        ]) {
          const error = await rejection(attempt);
          expect(error.rule).toBe(rule);
          expect(error.message).toMatch(text);
        }
      } finally {
        await producer.stop();
      }
      expect(sendEvents).toBe(0);
      expect([...(await probe.stored(topic)).values()].every((n) => n === 0)).toBe(true);
    });

    it.each(batches)('sendBatch: %s', async (rule, text, build) => {
      const producer = await clusterProducer(cluster);
      try {
        const error = await rejection(() => producer.sendBatch(build(topic)));
        expect(error.rule).toBe(rule);
        expect(error.message).toMatch(text);
      } finally {
        await producer.stop();
      }
      expect([...(await probe.stored(topic)).values()].every((n) => n === 0)).toBe(true);
    });

    it("selector rules: a selector returning nothing or another topic's queue sends nothing", async () => {
      const producer = await clusterProducer(cluster);
      try {
        const none = await rejection(() => producer.send({ topic, body: 'x' }, { selector: () => undefined as never }));
        expect(none.rule).toBe('selector.null');
        const other = await rejection(() =>
          producer.send({ topic, body: 'x' }, { selector: (mqs) => ({ ...mqs[0]!, topic: 'Elsewhere' }) }),
        );
        expect(other.rule).toBe('selector.topic');
        expect(other.message).toMatch(/the selected queue's topic Elsewhere is not the message's topic/);
      } finally {
        await producer.stop();
      }
      expect([...(await probe.stored(topic)).values()].every((n) => n === 0)).toBe(true);
      // The same producer kind does store a valid message on this topic: the probe sees real sends.
      const valid = await clusterProducer(cluster);
      await valid.send({ topic, body: 'ok' });
      await valid.stop();
      expect([...perBroker(await probe.stored(topic)).values()].reduce((a, b) => a + b, 0)).toBe(1);
    });
  });
});
