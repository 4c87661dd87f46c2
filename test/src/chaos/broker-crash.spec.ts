import type { ConsumerApp } from '@mqkit/core';
import { Deliveries, uniqueName, waitFor } from '@mqkit/core/testing';
import { fastBroker } from '@mqkit/transport-memory/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { Harness, consumerClass } from '../support/fixtures';

let harness: Harness;
afterEach(async () => harness?.close());

const ownedOn = (apps: ConsumerApp[], group: string, topic: string, broker: string) =>
  apps.reduce(
    (n, a) =>
      n +
      a
        .consumer(group)
        .status()
        .queues.filter((q) => q.mq.topic === topic && q.mq.brokerName === broker && q.state === 'active').length,
    0,
  );

/** Every member owns `n` queues of the topic: the group settled before anything is produced. */
const settled = (apps: ConsumerApp[], group: string, topic: string, n: number) =>
  apps.every(
    (a) =>
      a
        .consumer(group)
        .status()
        .queues.filter((q) => q.mq.topic === topic && q.state === 'active').length === n,
  );

const persistedEverywhere = (apps: ConsumerApp[], group: string, topic: string) =>
  apps.every((a) =>
    a
      .consumer(group)
      .status()
      .queues.filter((q) => q.mq.topic === topic)
      .every((q) => q.persistedOffset === q.committableOffset),
  );

describe('a broker that crashes and comes back (embedded cluster of two)', () => {
  for (const exclusiveHandoff of [false, true]) {
    it(`without the offsets it had: members go on from what they consumed, not from the broker's (exclusiveHandoff ${exclusiveHandoff})`, async () => {
      harness = new Harness(fastBroker({ brokerNames: ['broker-a', 'broker-b'] }));
      const topic = uniqueName('T');
      const group = uniqueName('g');
      harness.broker.createTopic({ topic, queues: 4 });
      const seen = new Deliveries();
      const Handler = consumerClass(
        { group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', exclusiveHandoff },
        (m) => seen.record(m.payload.seq),
      );
      const apps = [await harness.app([Handler]), await harness.app([Handler])];
      await waitFor(() => settled(apps, group, topic, 4), { message: 'two members with four queues each' });
      await harness.produce(topic, 4_000);
      await waitFor(() => seen.unique === 4_000, { timeoutMs: 20_000 });
      // Everything consumed is committed at the broker: nothing is in flight when it crashes.
      await waitFor(() => persistedEverywhere(apps, group, topic), { message: 'offsets persisted' });
      harness.broker.crashBroker('broker-b', { offsets: 'lost' });
      await waitFor(() => ownedOn(apps, group, topic, 'broker-b') === 0, { message: 'broker-b queues released' });
      // Consumption goes on, on broker-a, during the outage.
      await harness.produce(topic, 1_000, { from: 4_000 });
      await waitFor(() => seen.unique === 5_000, { timeoutMs: 20_000 });
      harness.broker.restartBroker('broker-b');
      await waitFor(() => ownedOn(apps, group, topic, 'broker-b') === 4, {
        timeoutMs: 20_000,
        message: 'broker-b queues owned again',
      });
      await harness.produce(topic, 1_000, { from: 5_000 });
      await waitFor(() => seen.unique === 6_000, { timeoutMs: 20_000 });
      await waitFor(() => persistedEverywhere(apps, group, topic), { message: 'offsets persisted after the restart' });
      expect(seen.missing(6_000)).toEqual([]);
      // The restarted broker knew no offset of broker-b's queues: taken from it, each would start over at 0.
      expect(seen.duplicates).toBe(0);
      for (const q of [0, 1, 2, 3]) {
        const mq = { topic, brokerName: 'broker-b', queueId: q };
        expect(harness.broker.queryConsumerOffset(group, mq)).toBe(harness.broker.maxOffset(mq));
      }
    }, 60_000);
  }

  it('a member that joins during the outage: nothing is lost, and what the broker forgot is offered back by the member that consumed it', async () => {
    harness = new Harness(fastBroker({ brokerNames: ['broker-a', 'broker-b'] }));
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 4 });
    const seen = new Deliveries();
    const Handler = consumerClass({ group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' }, (m) =>
      seen.record(m.payload.seq),
    );
    const apps = [await harness.app([Handler])];
    await harness.produce(topic, 4_000);
    await waitFor(() => seen.unique === 4_000, { timeoutMs: 20_000 });
    await waitFor(() => persistedEverywhere(apps, group, topic));
    harness.broker.crashBroker('broker-b', { offsets: 'lost' });
    await waitFor(() => ownedOn(apps, group, topic, 'broker-b') === 0);
    apps.push(await harness.app([Handler]));
    await waitFor(
      () =>
        ownedOn(apps, group, topic, 'broker-a') === 4 &&
        apps.every((a) =>
          a
            .consumer(group)
            .status()
            .queues.some((q) => q.mq.topic === topic),
        ),
    );
    harness.broker.restartBroker('broker-b');
    await waitFor(() => ownedOn(apps, group, topic, 'broker-b') === 4, { timeoutMs: 20_000 });
    await harness.produce(topic, 1_000, { from: 4_000 });
    await waitFor(() => seen.unique === 5_000, { timeoutMs: 20_000 });
    expect(seen.missing(5_000)).toEqual([]);
    // The joiner takes broker-b's queues with no memory of them. The first member offers what it consumed back
    // before it asks for the members, one broker call after the route returns; the joiner reads an offset only
    // after asking for the members. Each embedded call answers on a later turn, so the offer is stored first.
    // Without it the joiner would start broker-b's four queues over: 2,000 duplicates.
    expect(seen.duplicates).toBe(0);
    await waitFor(
      () =>
        [0, 1, 2, 3].every((q) => {
          const mq = { topic, brokerName: 'broker-b', queueId: q };
          return harness.broker.queryConsumerOffset(group, mq) === harness.broker.maxOffset(mq);
        }),
      { message: "broker-b's offsets committed up to its last message" },
    );
  }, 60_000);
});
