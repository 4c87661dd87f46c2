import {
  ConfigurationError,
  createAdmin,
  createConsumerApp,
  createProducer,
  createPullConsumer,
  type Message,
} from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import { memoryTransport } from '@mqkit/transport-memory';
import { afterEach, describe, expect, it } from 'vitest';
import { Harness, consumerClass } from '../support/fixtures';

let harness: Harness;
afterEach(async () => harness?.close());

describe("RocketMQ's namespaces, on the embedded broker", () => {
  it('wraps groups, topics and the retry topic as NamespaceUtil does; handlers, pull consumers and send results see plain names', async () => {
    harness = new Harness();
    const transport = () => memoryTransport({ broker: harness.broker });
    const ns = uniqueName('tenant').replace(/-/g, '_');
    const topic = uniqueName('orders');
    const group = uniqueName('g');
    const admin = await createAdmin({ transport: transport(), namespace: ns });
    await admin.createTopic({ topic, queues: 2 });
    expect(harness.broker.topicExists(`${ns}%${topic}`)).toBe(true);
    expect((await admin.queues(topic)).map((q) => q.topic)).toEqual([topic, topic]);
    const seen: Array<{ seq: number; topic: string; reconsumeTimes: number }> = [];
    const Handler = consumerClass(
      { group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
      (m: Message<{ seq: number }>) => {
        seen.push({ seq: m.payload.seq, topic: m.topic, reconsumeTimes: m.reconsumeTimes });
        if (m.payload.seq === 0 && m.reconsumeTimes === 0) throw new Error('once');
      },
    );
    const app = await createConsumerApp({
      transport: transport(),
      consumers: [Handler],
      profile: 'fast',
      namespace: ns,
      instanceName: uniqueName('app'),
    });
    await app.start();
    try {
      const producer = await createProducer({ transport: transport(), group: uniqueName('p'), namespace: ns });
      const results = [];
      for (let seq = 0; seq < 4; seq++) results.push(await producer.send({ topic, payload: { seq } }));
      await producer.stop();
      expect(results.every((r) => r.messageQueue.topic === topic)).toBe(true);
      expect(harness.broker.messages(`${ns}%${topic}`)).toHaveLength(4);
      await waitFor(() => seen.some((s) => s.reconsumeTimes === 1));
      // The retry went through %RETRY%<ns>%<group>, and the handler still sees its own topic name.
      expect(harness.broker.messages(`%RETRY%${ns}%${group}`)).toHaveLength(1);
      expect(new Set(seen.map((s) => s.topic))).toEqual(new Set([topic]));
      expect(app.consumer(group).status().group).toBe(`${ns}%${group}`);
      await waitFor(
        () =>
          app
            .consumer(group)
            .status()
            .queues.filter((q) => q.mq.topic === `${ns}%${topic}`)
            .reduce((n, q) => n + q.persistedOffset, 0) === 4,
      );
      expect(
        harness.broker.queryConsumerOffset(`${ns}%${group}`, {
          topic: `${ns}%${topic}`,
          brokerName: 'broker-a',
          queueId: 0,
        }),
      ).toBeGreaterThan(0);
      // A pull consumer in the namespace reads the same topic under its plain name.
      const pull = await createPullConsumer({
        transport: transport(),
        group: uniqueName('pg'),
        namespace: ns,
        profile: 'fast',
        consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      });
      try {
        const queues = await pull.queuesOf(topic);
        expect(queues.map((q) => q.topic)).toEqual([topic, topic]);
        await pull.assign(queues);
        expect(pull.assignment().map((q) => q.topic)).toEqual([topic, topic]);
        const got: Message[] = [];
        await waitFor(async () => {
          got.push(...(await pull.poll({ timeoutMs: 100 })));
          return got.length >= 4;
        });
        expect(new Set(got.map((m) => m.topic))).toEqual(new Set([topic]));
        await pull.commit();
        expect(await pull.committed(queues[0]!)).toBe(
          harness.broker.maxOffset({ ...queues[0]!, topic: `${ns}%${topic}` }),
        );
      } finally {
        await pull.close();
      }
    } finally {
      await app.stop();
      await admin.close();
    }
  });

  it('refuses a namespace that is not letters, digits, _ and -', async () => {
    harness = new Harness();
    const error = await createProducer({
      transport: memoryTransport({ broker: harness.broker }),
      group: 'p',
      namespace: 'a%b',
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error).toMatchObject({ option: 'namespace', value: 'a%b' });
  });
});
