import {
  createProducer,
  MessageConst,
  RequestTimeoutError,
  replyTopicOf,
  stringCodec,
  type Message,
} from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import { memoryTransport } from '@mqkit/transport-memory';
import { fastBroker } from '@mqkit/transport-memory/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { Harness, consumerClass } from '../support/fixtures';

let harness: Harness;
afterEach(async () => harness?.close());

const transport = () => memoryTransport({ broker: harness.broker });

describe('request-reply on the embedded broker', () => {
  it('a reply handler answers every request with its return value, with requests on both brokers and each reply through the broker that stored its request', async () => {
    harness = new Harness(fastBroker({ brokerNames: ['broker-a', 'broker-b'] }));
    const topic = uniqueName('T');
    harness.broker.createTopic({ topic, queues: 2 });
    const seen: Message[] = [];
    await harness.app([
      consumerClass({ group: uniqueName('g'), topic, reply: true }, (m: Message<{ seq: number }>) => {
        seen.push(m);
        return { seq: m.payload.seq, doubled: m.payload.seq * 2 };
      }),
    ]);
    const requester = await createProducer({ transport: transport(), group: uniqueName('req'), profile: 'fast' });
    try {
      const replies = await Promise.all(
        Array.from({ length: 40 }, (_, seq) =>
          requester.request<{ seq: number }, { seq: number; doubled: number }>(
            { topic, payload: { seq } },
            { timeoutMs: 5_000 },
          ),
        ),
      );
      expect(replies.map((r) => r.payload)).toEqual(
        Array.from({ length: 40 }, (_, seq) => ({ seq, doubled: seq * 2 })),
      );
      // Requests landed on both brokers, and each reply came back through the broker that stored its request.
      expect(new Set(seen.map((m) => m.brokerName))).toEqual(new Set(['broker-a', 'broker-b']));
      const brokerOfRequest = new Map(seen.map((m) => [m.properties[MessageConst.CORRELATION_ID], m.brokerName]));
      for (const reply of replies) {
        expect(reply.topic).toBe(replyTopicOf(harness.broker.clusterName));
        expect(reply.properties[MessageConst.MSG_TYPE]).toBe('reply');
        expect(reply.brokerName).toBe(brokerOfRequest.get(reply.properties[MessageConst.CORRELATION_ID]));
      }
      // The wire rules: the request carried its correlation id, the requester's client id and its timeout.
      for (const m of seen) {
        expect(m.properties[MessageConst.REPLY_TO_CLIENT]).toBe(requester.clientId);
        expect(m.properties[MessageConst.TTL]).toBe('5000');
        expect(m.properties[MessageConst.CORRELATION_ID]).toMatch(/^[0-9a-f-]{36}$/);
        expect(m.properties[MessageConst.CLUSTER]).toBe(harness.broker.clusterName);
      }
    } finally {
      await requester.stop();
    }
  });

  it('a Buffer or a string is replied as it is; other values go through the consumer codec; the requester decodes with its own', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    harness.broker.createTopic({ topic, queues: 1 });
    await harness.app([
      consumerClass({ group: uniqueName('g'), topic, reply: true, codec: stringCodec }, (m: Message) => {
        const text = m.payload as string;
        if (text === 'buffer') return Buffer.from([0, 1, 2, 255]);
        if (text === 'string') return 'plain text';
        if (text === 'big') return 'x'.repeat(10_000); // compressed on the way back
        return `codec:${text}`;
      }),
    ]);
    const requester = await createProducer({ transport: transport(), group: uniqueName('req'), codec: stringCodec });
    try {
      expect((await requester.request({ topic, body: 'buffer' })).body).toEqual(Buffer.from([0, 1, 2, 255]));
      expect((await requester.request({ topic, body: 'string' })).payload).toBe('plain text');
      expect((await requester.request({ topic, body: 'big' })).payload).toBe('x'.repeat(10_000));
      expect((await requester.request({ topic, payload: 'other' })).payload).toBe('codec:other');
    } finally {
      await requester.stop();
    }
  });

  it('no reply within timeoutMs rejects with RequestTimeoutError; the late reply is dropped, not handed to a later request', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    harness.broker.createTopic({ topic, queues: 1 });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    await harness.app([
      consumerClass({ group: uniqueName('g'), topic, reply: true }, async (m: Message) => {
        if ((m.payload as { n: number }).n === 1) await gate;
        return (m.payload as { n: number }).n;
      }),
    ]);
    const requester = await createProducer({ transport: transport(), group: uniqueName('req') });
    const dropped: string[] = [];
    requester.events.on('producer.reply-dropped', (e) => dropped.push(e.correlationId));
    try {
      const started = Date.now();
      const error = await requester.request({ topic, payload: { n: 1 } }, { timeoutMs: 300 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RequestTimeoutError);
      expect(Date.now() - started).toBeGreaterThanOrEqual(295);
      const { correlationId } = error as RequestTimeoutError;
      release();
      await waitFor(() => dropped.includes(correlationId));
      // The consumer goes on answering: the next request gets its own reply, not the late one.
      expect((await requester.request({ topic, payload: { n: 2 } }, { timeoutMs: 5_000 })).payload).toBe(2);
    } finally {
      await requester.stop();
    }
  });

  it('a reply handler that throws is retried and answers on the redelivery; messages that are not requests get no reply', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    harness.broker.createTopic({ topic, queues: 1 });
    let calls = 0;
    const replies: boolean[] = [];
    const app = await harness.app([
      consumerClass({ group: uniqueName('g'), topic, reply: true }, (m: Message) => {
        calls++;
        if ((m.payload as { n: number }).n === 1 && m.reconsumeTimes === 0) throw new Error('first try fails');
        return (m.payload as { n: number }).n * 10;
      }),
    ]);
    app.on('consumer.reply', (e) => replies.push(e.sent));
    const requester = await createProducer({ transport: transport(), group: uniqueName('req') });
    try {
      await requester.send({ topic, payload: { n: 0 } }); // a plain message: consumed, never replied
      expect((await requester.request({ topic, payload: { n: 1 } }, { timeoutMs: 10_000 })).payload).toBe(10);
      await waitFor(() => replies.length === 1);
      expect(replies).toEqual([true]);
      expect(calls).toBe(3);
    } finally {
      await requester.stop();
    }
  });

  it('a requester that is gone gets no reply, and the replier reports it while the request counts as consumed', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    harness.broker.createTopic({ topic, queues: 1 });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const errors: string[] = [];
    const app = await harness.app([
      consumerClass({ group: uniqueName('g'), topic, reply: true }, async () => {
        await gate;
        return 'late';
      }),
    ]);
    app.on('consumer.error', (e) => e.where === 'reply' && errors.push(e.error.message));
    const requester = await createProducer({ transport: transport(), group: uniqueName('req') });
    const pending = requester.request({ topic, body: 'x' }, { timeoutMs: 200 }).catch((e: unknown) => e);
    expect(await pending).toBeInstanceOf(RequestTimeoutError);
    await requester.stop();
    release();
    await waitFor(() => errors.length === 1);
    expect(errors[0]).toMatch(/channel of <.*> not found/);
    // Consumed all the same: the offset may move past the request.
    await waitFor(() =>
      app.status().consumers[0]!.queues.some((q) => q.mq.topic === topic && q.committableOffset === 1),
    );
  });

  it("an app's own producer makes requests too (its heartbeats register the producer group)", async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    harness.broker.createTopic({ topic, queues: 1 });
    await harness.app([
      consumerClass({ group: uniqueName('g'), topic, reply: true }, (m: Message) => (m.payload as { n: number }).n + 1),
    ]);
    const requesting = await harness.app([], {
      producer: { group: uniqueName('appReq') },
      instanceName: uniqueName('requesting'),
    });
    expect(
      (await requesting.producer.request<{ n: number }, number>({ topic, payload: { n: 41 } }, { timeoutMs: 5_000 }))
        .payload,
    ).toBe(42);
  });

  it('refuses reply with batch at start, and a request with a bad timeout before sending', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    await expect(
      harness.app([consumerClass({ group: uniqueName('g'), topic, reply: true, batch: true }, () => undefined)]),
    ).rejects.toThrow(/reply/);
    const requester = await createProducer({ transport: transport(), group: uniqueName('req') });
    await expect(requester.request({ topic, body: 'x' }, { timeoutMs: 0 })).rejects.toMatchObject({
      rule: 'request.timeout',
    });
    await expect(requester.send({ topic, body: 'x', properties: { CORRELATION_ID: 'mine' } })).rejects.toMatchObject({
      rule: 'property.reserved',
    });
    await requester.stop();
    expect(harness.broker.messages(topic)).toHaveLength(0);
  });
});
