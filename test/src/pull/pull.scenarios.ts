import type { Message } from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import { expect } from 'vitest';
import { HELD_POLLS, queueOf, sendAtOnce, seqProducer } from '../pause/pause.scenarios';
import type { Scenario } from '../support/scenarios';
import type { TestBroker } from '../support/test-broker';

const seqOf = (m: Message) => (m as Message<{ seq: number }>).payload.seq;

/**
 * `pause(queues)` on a pull consumer: nothing of those queues comes out of `poll()`, neither what was buffered nor
 * what the long polls the broker held bring in after the pause, and a poll already waiting keeps waiting;
 * `resume(queues)` hands all of it out, each message once. The queues left running go on meanwhile.
 */
async function pullPauseHoldsQueues(broker: TestBroker): Promise<void> {
  const { timeoutMs } = broker;
  const topic = uniqueName('pulled');
  await broker.createTopic(topic, 2);
  const consumer = await broker.pullConsumer({
    group: uniqueName('g'),
    profile: HELD_POLLS,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    instanceName: uniqueName('pull'),
  });
  const producer = await seqProducer(broker);
  try {
    const queues = await consumer.queuesOf(topic);
    await consumer.assign(queues);
    const got: Message[] = [];
    const pollFor = async (n: number) =>
      waitFor(
        async () => {
          got.push(...(await consumer.poll({ timeoutMs: 200 })));
          return got.length >= n;
        },
        { timeoutMs, message: () => `${got.length}/${n} polled` },
      );
    await sendAtOnce(producer, topic, 0, 20);
    await pollFor(20);
    const paused = queues.filter((_, i) => i % 2 === 0);
    const pausedKeys = new Set(paused.map(queueOf));
    // A poll waiting when the pause comes, for messages not sent yet.
    let waited: Message[] | undefined;
    const waiting = consumer.poll({ timeoutMs: 5 * timeoutMs }).then((m) => (waited = m));
    const answeredBefore = new Map(consumer.status().queues.map((q) => [queueOf(q.mq), q.lastPullTimestamp]));
    consumer.pause(paused);

    const later = (await sendAtOnce(producer, topic, 20, 4 * queues.length)).map((r, i) => ({
      queue: queueOf(r.messageQueue),
      seq: 20 + i,
    }));
    const toPaused = later.filter((m) => pausedKeys.has(m.queue));
    const toRunning = later.filter((m) => !pausedKeys.has(m.queue));
    expect(toPaused.length).toBeGreaterThan(0);
    expect(toRunning.length).toBeGreaterThan(0);
    // The polls the broker held for the paused queues answer: what they bring is buffered.
    const pausedStatus = () => consumer.status().queues.filter((q) => toPaused.some((m) => m.queue === queueOf(q.mq)));
    await waitFor(() => pausedStatus().every((q) => q.lastPullTimestamp > answeredBefore.get(queueOf(q.mq))!), {
      timeoutMs,
      message: 'pull answers of the paused queues',
    });
    // The running queues go on: their messages come out, to the poll that was waiting first.
    await waiting;
    got.length = 0;
    got.push(...waited!);
    await pollFor(toRunning.length);
    expect(got.map(seqOf).sort((a, b) => a - b)).toEqual(toRunning.map((m) => m.seq));
    expect(pausedStatus().reduce((sum, q) => sum + q.cachedCount, 0)).toBeGreaterThan(0);
    expect(await consumer.poll({ timeoutMs: 0 })).toEqual([]);

    consumer.resume(paused);
    got.length = 0;
    await pollFor(toPaused.length);
    expect(got.map(seqOf).sort((a, b) => a - b)).toEqual(toPaused.map((m) => m.seq));
    expect(await consumer.poll({ timeoutMs: 0 })).toEqual([]);
  } finally {
    await producer.stop();
  }
}

/**
 * Two subscribers of one group split the topic's queues (two on every broker) between them, and together poll each
 * message the tag filter selects once, and none it does not.
 */
async function subscribersSplitTheQueues(broker: TestBroker): Promise<void> {
  const { timeoutMs } = broker;
  const topic = uniqueName('pullsub');
  const group = uniqueName('g');
  await broker.createTopic(topic, 2);
  const queues = 2 * broker.brokerNames.length;
  const a = await broker.pullConsumer({ group, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
  const b = await broker.pullConsumer({ group, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
  await a.subscribe(topic, { tags: 'even' });
  await b.subscribe(topic, { tags: 'even' });
  await waitFor(() => a.assignment().length === queues / 2 && b.assignment().length === queues / 2, {
    timeoutMs,
    message: () => `assignments of ${a.assignment().length} and ${b.assignment().length}`,
  });
  expect(new Set([...a.assignment(), ...b.assignment()].map(queueOf)).size).toBe(queues);
  await broker.produce(topic, 300, { tags: (seq) => (seq % 2 === 0 ? 'even' : 'odd') });
  const seen: number[] = [];
  await waitFor(
    async () => {
      const [x, y] = await Promise.all([a.poll({ timeoutMs: 200 }), b.poll({ timeoutMs: 200 })]);
      seen.push(...[...x, ...y].map(seqOf));
      return seen.length >= 150;
    },
    { timeoutMs, message: () => `${seen.length}/150 polled` },
  );
  expect(seen.sort((p, q) => p - q)).toEqual([...Array(150).keys()].map((i) => i * 2));
}

/** The pull consumer on both brokers. */
export const PULL_SCENARIOS: readonly Scenario[] = [
  {
    title: 'two subscribers of one group split the queues and together read each message once; a tag filter applies',
    timeoutMs: { embedded: 30_000, rocketmq: 120_000 },
    run: subscribersSplitTheQueues,
  },
  {
    title:
      'after pause(queues) poll() returns nothing of them, buffered or pulled in flight; resume() hands it all out once',
    timeoutMs: { embedded: 30_000, rocketmq: 240_000 },
    run: pullPauseHoldsQueues,
  },
];
