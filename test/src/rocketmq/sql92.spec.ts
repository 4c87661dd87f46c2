import { ConfigurationError, createProducer, type ConsumerApp, type Message, type TransportPlugin } from '@mqkit/core';
import { SQL92_CASES, SQL92_SAMPLES, uniqueName, waitFor } from '@mqkit/core/testing';
import { EmbeddedBroker, memoryTransport } from '@mqkit/transport-memory';
import { fastBroker } from '@mqkit/transport-memory/testing';
import type { RocketMqCluster } from '@mqkit/transport-rocketmq/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, consumerClass } from '../support/fixtures';
import { RocketMqHarness, testCluster, updateBrokerConfig } from '../support/rocketmq-fixtures';

/** What the spec needs of a broker: apps, a producer's transport, topics. */
interface Side {
  app(consumers: (new () => object)[]): Promise<ConsumerApp>;
  transport(): TransportPlugin;
  createTopic(topic: string, queues: number): Promise<void>;
}

let cluster: RocketMqCluster;
let real: RocketMqHarness;
let embedded: Harness;
beforeAll(async () => {
  cluster = await testCluster();
  real = new RocketMqHarness(cluster);
  embedded = new Harness(fastBroker());
});
afterAll(async () => {
  await real?.close();
  await embedded?.close();
});

const sides: Record<string, () => Side> = {
  'the embedded broker': () => ({
    app: (consumers) => embedded.app(consumers),
    transport: () => memoryTransport({ broker: embedded.broker }),
    createTopic: async (topic, queues) => embedded.broker.createTopic({ topic, queues }),
  }),
  'a real broker (enablePropertyFilter=true)': () => ({
    app: (consumers) => real.app(consumers),
    transport: () => real.transport(),
    createTopic: (topic, queues) => real.createTopic(topic, queues),
  }),
};

/** Sends each sample (its properties and tags) with payload `{ seq: id }`, in order, to one queue. */
async function sendSamples(side: Side, topic: string, idOffset = 0): Promise<void> {
  const producer = await createProducer({
    transport: side.transport(),
    group: uniqueName('producer'),
    profile: 'fast',
    sendMsgTimeout: 10_000,
  });
  try {
    for (const s of SQL92_SAMPLES)
      await producer.send({ topic, payload: { seq: s.id + idOffset }, tags: s.tags, properties: s.properties });
  } finally {
    await producer.stop();
  }
}

/** The group consumed the topic to `total` (the messages sent): what the broker selects of them has been handled. */
const drained = (app: ConsumerApp, group: string, topic: string, total = SQL92_SAMPLES.length) =>
  app
    .consumer(group)
    .status()
    .queues.filter((q) => q.mq.topic === topic)
    .reduce((n, q) => n + q.committableOffset, 0) === total;

describe.each(Object.keys(sides))('SQL92 subscriptions on %s', (name) => {
  const side = () => sides[name]!();

  it(`selects what RocketMQ's evaluator selects, for ${SQL92_CASES.length} expressions over one message set`, async () => {
    const topic = uniqueName('sql');
    await side().createTopic(topic, 1);
    // One group per expression, all in one app: each reads the whole topic through its own filter.
    await sendSamples(side(), topic);
    const seen = new Map<string, number[]>();
    const groups = SQL92_CASES.map(([sql], i) => ({ sql, group: uniqueName(`sql${i}`) }));
    const app = await side().app(
      groups.map(({ sql, group }) => {
        seen.set(sql, []);
        return consumerClass(
          { group, topic, sql, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
          (m: Message<{ seq: number }>) => void seen.get(sql)!.push(m.payload.seq),
        );
      }) as (new () => object)[],
    );
    await waitFor(() => groups.every(({ group }) => drained(app, group, topic)), {
      timeoutMs: 60_000,
      message: () =>
        groups
          .filter(({ group }) => !drained(app, group, topic))
          .map((g) => g.sql)
          .join('; '),
    });
    const selected = Object.fromEntries(SQL92_CASES.map(([sql]) => [sql, [...seen.get(sql)!].sort((a, b) => a - b)]));
    expect(selected).toEqual(Object.fromEntries(SQL92_CASES.map(([sql, ids]) => [sql, ids])));
  }, 120_000);

  it('a failed message comes back through the retry topic (subscribed with TAG *), and unselected ones never arrive', async () => {
    const topic = uniqueName('sqlretry');
    const group = uniqueName('g');
    await side().createTopic(topic, 1);
    const deliveries: Array<{ id: number; reconsumeTimes: number }> = [];
    const app = await side().app([
      consumerClass(
        { group, topic, sql: "region = 'eu'", consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
        (m: Message<{ seq: number }>) => {
          deliveries.push({ id: m.payload.seq, reconsumeTimes: m.reconsumeTimes });
          if (m.reconsumeTimes === 0 && m.payload.seq === 0) throw new Error('first attempt fails');
        },
      ),
    ]);
    await sendSamples(side(), topic);
    await waitFor(() => deliveries.some((d) => d.id === 0 && d.reconsumeTimes === 1), { timeoutMs: 30_000 });
    await waitFor(() => drained(app, group, topic));
    expect(
      deliveries
        .filter((d) => d.reconsumeTimes === 0)
        .map((d) => d.id)
        .sort(),
    ).toEqual([0, 2, 4, 9]);
    expect(deliveries.filter((d) => d.reconsumeTimes > 0).map((d) => d.id)).toEqual([0]);
  }, 60_000);

  it('a changed subscription takes effect: the group restarted with another expression goes on with it', async () => {
    const topic = uniqueName('sqlchange');
    const group = uniqueName('g');
    await side().createTopic(topic, 1);
    const got: number[] = [];
    const handler = (m: Message<{ seq: number }>) => void got.push(m.payload.seq);
    await sendSamples(side(), topic);
    const first = await side().app([
      consumerClass({ group, topic, sql: "region = 'eu'", consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' }, handler),
    ]);
    await waitFor(() => drained(first, group, topic));
    await first.stop();
    expect(got.sort((a, b) => a - b)).toEqual([0, 2, 4, 9]);
    got.length = 0;
    // The second batch (ids 100+) is read by the group restarted with another expression, from its committed offset.
    await sendSamples(side(), topic, 100);
    const second = await side().app([
      consumerClass({ group, topic, sql: "tier = 'gold'", consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' }, handler),
    ]);
    await waitFor(() => drained(second, group, topic, 2 * SQL92_SAMPLES.length));
    expect(got.sort((a, b) => a - b)).toEqual([100, 103, 105, 108, 109]);
  }, 60_000);
});

describe('SQL92 on a broker without enablePropertyFilter', () => {
  const expectRefused = async (start: Promise<unknown>) => {
    const error = await start.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error).toMatchObject({ option: 'sql', value: "region = 'eu'" });
    expect((error as ConfigurationError).allowed).toContain('enablePropertyFilter=true');
  };

  it('the embedded broker: app.start() fails naming the option and the broker setting', async () => {
    const harness = new Harness(new EmbeddedBroker({ enablePropertyFilter: false }));
    try {
      const topic = uniqueName('sqloff');
      harness.broker.createTopic({ topic, queues: 1 });
      await expectRefused(
        harness.app([consumerClass({ group: uniqueName('g'), topic, sql: "region = 'eu'" }, () => undefined)]),
      );
    } finally {
      await harness.close();
    }
  });

  it('a real broker: CHECK_CLIENT_CONFIG refuses it and app.start() fails naming the option and the broker setting', async () => {
    const topic = uniqueName('sqloff');
    await real.createTopic(topic, 1);
    await updateBrokerConfig(cluster, { enablePropertyFilter: 'false' });
    try {
      await expectRefused(
        real.app([consumerClass({ group: uniqueName('g'), topic, sql: "region = 'eu'" }, () => undefined)]),
      );
    } finally {
      await updateBrokerConfig(cluster, { enablePropertyFilter: 'true' });
    }
  });
});
