import { createPullConsumer, type Message } from '@mqkit/core';
import { Deliveries, uniqueName, waitFor } from '@mqkit/core/testing';
import { describe, expect, it } from 'vitest';
import { consumerClass } from '../support/fixtures';
import { useCompat } from './compat-context';

const harness = useCompat();
const TAGS = ['A', 'B', 'C'] as const;

describe('Send and consume, with tags and keys', () => {
  it('a "A || B" group gets exactly those tags and every message of them, with its keys', async () => {
    const topic = uniqueName('cSend');
    await harness().createTopic(topic, 2);
    const seen = new Deliveries();
    const wrong: string[] = [];
    await harness().app([
      consumerClass(
        { group: uniqueName('gAB'), topic, tags: 'A || B', consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
        (m: Message<{ seq: number }>) => {
          if (m.tags !== TAGS[m.payload.seq % 3] || m.tags === 'C' || m.keys[0] !== `k${m.payload.seq}`)
            wrong.push(`${m.payload.seq}:${m.tags}:${m.keys.join(',')}`);
          seen.record(m.payload.seq);
        },
      ),
    ]);
    await harness().produce(topic, 300, { tags: (seq) => TAGS[seq % 3] });
    const expected = [...Array(300).keys()].filter((seq) => seq % 3 !== 2);
    await waitFor(() => seen.unique === expected.length, {
      timeoutMs: 60_000,
      message: () => `${seen.unique}/${expected.length}`,
    });
    expect(wrong).toEqual([]);
    expect([...seen.counts.keys()].sort((a, b) => a - b)).toEqual(expected);
  });
});

describe('Pull consumer', () => {
  it('subscribe and poll read every message of the topic, and commit stores where it stopped', async () => {
    const topic = uniqueName('cPull');
    const group = uniqueName('gPull');
    await harness().createTopic(topic, 2);
    await harness().produce(topic, 50);
    const consumer = await createPullConsumer({
      transport: harness().transport(),
      group,
      profile: 'fast',
      instanceName: uniqueName('pull'),
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      autoCommit: false,
    });
    try {
      const queues = await consumer.queuesOf(topic);
      await consumer.subscribe(topic);
      const got = new Deliveries();
      await waitFor(
        async () => {
          for (const m of (await consumer.poll({ timeoutMs: 500 })) as Message<{ seq: number }>[])
            got.record(m.payload.seq);
          return got.unique === 50;
        },
        { timeoutMs: 30_000, message: () => `${got.unique}/50` },
      );
      expect(got.missing(50)).toEqual([]);
      await consumer.commit();
      // What the broker holds of the group, per queue, against what the consumer says it committed.
      const offsets = (await harness().adminApp()).transport.offsets;
      const stored = await Promise.all(queues.map((mq) => offsets.queryConsumerOffset(group, mq)));
      const own = await Promise.all(queues.map((mq) => consumer.committed(mq)));
      expect(
        { stored, sum: stored.reduce((a, b) => a + b, 0) },
        `the consumer says ${own}; ${got.total} polled; ${JSON.stringify(consumer.status().queues)}`,
      ).toEqual({
        stored: own,
        sum: 50,
      });
    } finally {
      await consumer.close();
    }
  });
});
