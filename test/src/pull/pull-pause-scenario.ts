import type { Message, PullConsumer, PullConsumerOptions } from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import { expect } from 'vitest';
import { HELD_POLLS, queueOf, sendSeqs, seqProducer, type PauseBackend } from '../delivery/pause-scenarios';

/** Where the pull consumer's pause scenario runs. */
export interface PullPauseBackend extends Omit<PauseBackend, 'app'> {
  /** Creates a pull consumer; whoever made the backend closes it. */
  pullConsumer(options: Omit<PullConsumerOptions, 'transport'>): Promise<PullConsumer>;
}

const seqOf = (m: Message) => (m as Message<{ seq: number }>).payload.seq;

/**
 * `pause(queues)` on a pull consumer: nothing of those queues comes out of `poll()`, neither what was buffered nor
 * what the long polls the broker held bring in after the pause, and a poll already waiting keeps waiting;
 * `resume(queues)` hands all of it out, each message once. The queues left running go on meanwhile.
 */
export async function pullPauseHoldsQueues(backend: PullPauseBackend): Promise<void> {
  const { timeoutMs } = backend;
  const topic = uniqueName('pulled');
  await backend.createTopic(topic, 2);
  const consumer = await backend.pullConsumer({
    group: uniqueName('g'),
    profile: HELD_POLLS,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    instanceName: uniqueName('pull'),
  });
  const producer = await seqProducer(backend);
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
    await sendSeqs(producer, topic, 0, 20);
    await pollFor(20);
    const paused = queues.filter((_, i) => i % 2 === 0);
    const pausedKeys = new Set(paused.map(queueOf));
    // A poll waiting when the pause comes, for messages not sent yet.
    let waited: Message[] | undefined;
    const waiting = consumer.poll({ timeoutMs: 5 * timeoutMs }).then((m) => (waited = m));
    const answeredBefore = new Map(consumer.status().queues.map((q) => [queueOf(q.mq), q.lastPullTimestamp]));
    consumer.pause(paused);

    const later = (await sendSeqs(producer, topic, 20, 4 * queues.length)).map((r, i) => ({
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
