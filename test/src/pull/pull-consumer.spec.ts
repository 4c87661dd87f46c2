import {
  ConfigurationError,
  IllegalStateError,
  createProducer,
  createPullConsumer,
  type Message,
  type MessageQueue,
  type PullConsumer,
} from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import { memoryTransport } from '@mqkit/transport-memory';
import { afterEach, describe, expect, it } from 'vitest';
import { embeddedBroker, Harness } from '../support/fixtures';
import { describeScenarios } from '../support/scenarios';
import { PULL_SCENARIOS } from './pull.scenarios';

let harness: Harness;
const consumers: PullConsumer[] = [];
afterEach(async () => {
  await Promise.all(consumers.splice(0).map((c) => c.close()));
  await harness?.close();
});

async function pullConsumer(
  group: string,
  extra: Partial<Parameters<typeof createPullConsumer>[0]> = {},
): Promise<PullConsumer> {
  const consumer = await createPullConsumer({
    transport: memoryTransport({ broker: harness.broker }),
    group,
    profile: 'fast',
    instanceName: uniqueName('pull'),
    ...extra,
  });
  consumers.push(consumer);
  return consumer;
}

/** Polls until `n` messages came (each poll's batch kept), failing after the timeout. */
async function pollUntil(consumer: PullConsumer, n: number): Promise<Message<{ seq: number }>[][]> {
  const batches: Message<{ seq: number }>[][] = [];
  await waitFor(
    async () => {
      const got = (await consumer.poll({ timeoutMs: 200 })) as Message<{ seq: number }>[];
      if (got.length > 0) batches.push(got);
      return batches.flat().length >= n;
    },
    { timeoutMs: 10_000, message: () => `${batches.flat().length}/${n}` },
  );
  return batches;
}

const seqs = (messages: readonly Message<{ seq: number }>[]) => messages.map((m) => m.payload.seq);

describeScenarios('the pull consumer', PULL_SCENARIOS, embeddedBroker());

describe('the pull consumer on the embedded broker', () => {
  it('assign, poll in offset order per queue, seek back, commit: the store holds the offset after the last polled message', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    harness.broker.createTopic({ topic, queues: 4 });
    await harness.produce(topic, 40);
    const group = uniqueName('g');
    const consumer = await pullConsumer(group, { autoCommit: false, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    const queues = await consumer.queuesOf(topic);
    expect(queues).toHaveLength(4);
    const mine = queues.slice(0, 2);
    await consumer.assign(mine);
    expect(consumer.assignment()).toEqual(mine);
    const batches = await pollUntil(consumer, 20);
    const all = batches.flat();
    expect(all).toHaveLength(20);
    expect(new Set(all.map((m) => m.queueId))).toEqual(new Set(mine.map((q) => q.queueId)));
    for (const mq of mine) {
      const offsets = all.filter((m) => m.queueId === mq.queueId).map((m) => m.queueOffset);
      expect(offsets).toEqual([...Array(10).keys()]);
    }
    // Every poll is at most pullBatchSize (10, Java's default).
    expect(Math.max(...batches.map((b) => b.length))).toBeLessThanOrEqual(10);
    // Nothing is stored before commit(); commit stores the offset after the last polled message.
    expect(await consumer.committed(mine[0]!)).toBe(-1);
    await consumer.commit();
    expect(await consumer.committed(mine[0]!)).toBe(10);
    expect(harness.broker.queryConsumerOffset(group, mine[1]!)).toBe(10);
    // seek back: the next polls start there; commit stores where polling got to again.
    await consumer.seek(mine[0]!, 4);
    const again = (await pollUntil(consumer, 6)).flat();
    expect(again.map((m) => m.queueOffset)).toEqual([4, 5, 6, 7, 8, 9]);
    await expect(consumer.seek(mine[0]!, 11)).rejects.toThrow(ConfigurationError);
    await expect(consumer.seek(queues[3]!, 0)).rejects.toThrow(/not in assigned list/);
    await expect(consumer.subscribe(topic)).rejects.toThrow(IllegalStateError);
  });

  it('without autoCommit, a close stores only what was committed; with it, what poll returned is stored at the interval', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    harness.broker.createTopic({ topic, queues: 1 });
    await harness.produce(topic, 30);
    const [mq] = harness.broker.subscribeQueues(topic) as MessageQueue[];
    const manual = uniqueName('g');
    const first = await pullConsumer(manual, { autoCommit: false, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    await first.assign([mq!]);
    await pollUntil(first, 10);
    await first.commit();
    await pollUntil(first, 10);
    await first.close();
    expect(harness.broker.queryConsumerOffset(manual, mq!)).toBe(10);
    const auto = uniqueName('g');
    const second = await pullConsumer(auto, {
      autoCommitIntervalMs: 1_000,
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    });
    await second.assign([mq!]);
    await pollUntil(second, 30);
    await waitFor(() => harness.broker.queryConsumerOffset(auto, mq!) === 30);
  });

  it('commit, the periodic commit and close store only the queues polled or sought, never an unread queue', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    harness.broker.createTopic({ topic, queues: 3 });
    await harness.produce(topic, 30);
    const [q0, q1, q2] = harness.broker.subscribeQueues(topic) as MessageQueue[];
    // The README's replay: a new group (so it starts at each queue's end) seeks one queue back and reads it. The
    // queue read is stored; the one it never read must not get its end offset stored, nor the paused one its start.
    const group = uniqueName('g');
    const replay = await pullConsumer(group, { autoCommit: false });
    replay.pause([q2!]);
    await replay.assign([q0!, q1!, q2!]);
    await replay.seekToBegin(q0!);
    expect((await pollUntil(replay, 10)).flat().every((m) => m.queueId === q0!.queueId)).toBe(true);
    await replay.commit();
    expect(harness.broker.queryConsumerOffset(group, q0!)).toBe(10);
    expect(harness.broker.queryConsumerOffset(group, q1!)).toBe(-1);
    expect(harness.broker.queryConsumerOffset(group, q2!)).toBe(-1);
    await replay.close();
    expect([q1, q2].map((mq) => harness.broker.queryConsumerOffset(group, mq!))).toEqual([-1, -1]);
    // With autoCommit, the periodic commit that stores the polled queue leaves the paused one alone.
    const auto = uniqueName('g');
    const periodic = await pullConsumer(auto, {
      autoCommitIntervalMs: 1_000,
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    });
    periodic.pause([q1!]);
    await periodic.assign([q0!, q1!]);
    await pollUntil(periodic, 10);
    await waitFor(() => harness.broker.queryConsumerOffset(auto, q0!) === 10);
    expect(harness.broker.queryConsumerOffset(auto, q1!)).toBe(-1);
  });

  it('a seek right after assign (not awaited) wins over the stored offset', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    harness.broker.createTopic({ topic, queues: 1 });
    await harness.produce(topic, 20);
    const group = uniqueName('g');
    const [mq] = harness.broker.subscribeQueues(topic) as MessageQueue[];
    harness.broker.commitConsumerOffset(group, mq!, 15);
    const consumer = await pullConsumer(group);
    void consumer.assign([mq!]);
    await consumer.seek(mq!, 2);
    const got = (await pollUntil(consumer, 18)).flat();
    expect(got[0]!.queueOffset).toBe(2);
    expect(got.map((m) => m.queueOffset)).toEqual([...Array(18).keys()].map((i) => i + 2));
  });

  it('flow control bounds what a queue caches; pause holds a queue, resume lets it go on; for await yields batches', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    harness.broker.createTopic({ topic, queues: 2 });
    await harness.produce(topic, 400);
    const consumer = await pullConsumer(uniqueName('g'), {
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      pullThresholdForQueue: 50,
      pullBatchSize: 10,
    });
    const queues = await consumer.queuesOf(topic);
    consumer.pause([queues[1]!]);
    await consumer.assign(queues);
    // Nothing polled: each active queue caches up to its threshold (plus at most one pull) and stops.
    await waitFor(() => consumer.status().buffered >= 50);
    const cached = () => consumer.status().queues.map((q) => q.cachedCount);
    expect(Math.max(...cached())).toBeLessThanOrEqual(60);
    const first = (await pollUntil(consumer, 200)).flat();
    expect(new Set(first.map((m) => m.queueId))).toEqual(new Set([queues[0]!.queueId]));
    consumer.resume([queues[1]!]);
    const rest: Message[] = [];
    for await (const batch of consumer) {
      rest.push(...batch);
      if (rest.length >= 200) break;
    }
    expect(rest.every((m) => m.queueId === queues[1]!.queueId)).toBe(true);
  });

  it('an SQL92 subscription selects by properties; without autoCommit a queue that moves to a new member is stored as last committed', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    harness.broker.createTopic({ topic, queues: 2 });
    const producer = await createProducer({
      transport: memoryTransport({ broker: harness.broker }),
      group: uniqueName('p'),
    });
    for (let seq = 0; seq < 40; seq++)
      await producer.send({ topic, payload: { seq }, properties: { region: seq % 3 === 0 ? 'eu' : 'us' } });
    await producer.stop();
    const group = uniqueName('g');
    const a = await pullConsumer(group, { autoCommit: false, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    await a.subscribe(topic, { sql: "region = 'eu'" });
    const got = seqs((await pollUntil(a, 14)).flat());
    expect(got.sort((x, y) => x - y)).toEqual([...Array(14).keys()].map((i) => i * 3));
    // Nothing committed: the queue a second member takes over was not stored (not where polling got to, nor its
    // start offset), and the new member reads its selected messages again.
    const b = await pullConsumer(group, { autoCommit: false, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    await b.subscribe(topic, { sql: "region = 'eu'" });
    await waitFor(() => a.assignment().length === 1 && b.assignment().length === 1);
    const moved = b.assignment()[0]!;
    expect(harness.broker.queryConsumerOffset(group, moved)).toBe(-1);
    const onMoved = harness.broker
      .messages(topic, moved.brokerName, moved.queueId)
      .filter((m) => m.properties.region === 'eu').length;
    expect(onMoved).toBe(7);
    const again = (await pollUntil(b, onMoved)).flat();
    expect(again.every((m) => m.queueId === moved.queueId && m.properties.region === 'eu')).toBe(true);
  });

  it('offsetForTimestamp finds the first message stored at or after the time', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    harness.broker.createTopic({ topic, queues: 1 });
    await harness.produce(topic, 5);
    const [mq] = harness.broker.subscribeQueues(topic) as MessageQueue[];
    const stored = harness.broker.messages(topic);
    const consumer = await pullConsumer(uniqueName('g'));
    expect(await consumer.offsetForTimestamp(mq!, stored[3]!.storeTimestamp)).toBe(
      harness.broker.searchOffset(mq!, stored[3]!.storeTimestamp),
    );
    expect(await consumer.offsetForTimestamp(mq!, Date.now() + 60_000)).toBe(5);
  });

  it('refuses bad options at creation, naming each', async () => {
    harness = new Harness();
    const error = await createPullConsumer({
      transport: memoryTransport({ broker: harness.broker }),
      group: 'a b',
      autoCommitIntervalMs: 10,
      pullBatchSize: 0,
    } as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).issues.map((i) => i.option).sort()).toEqual([
      'autoCommitIntervalMs',
      'group',
      'pullBatchSize',
    ]);
  });
});
