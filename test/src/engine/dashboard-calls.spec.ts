import { ConsumeStatus, type ConsumeHook } from '@mqkit/core';
import { Deliveries, uniqueName, waitFor } from '@mqkit/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { Harness, consumerClass } from '../support/fixtures';

let harness: Harness;
afterEach(async () => harness?.close());

describe("the dashboard's calls on the embedded broker", () => {
  it('CONSUME_MESSAGE_DIRECTLY runs the handler once through the hooks and answers CR_SUCCESS, CR_LATER or CR_THROW_EXCEPTION; no offset moves', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 1 });
    const seen = new Deliveries();
    let answer: 'ok' | 'later' | 'throw' = 'ok';
    let hooked = 0;
    const hook: ConsumeHook = {
      name: 'count',
      around: (_call, proceed) => {
        hooked++;
        return proceed();
      },
    };
    const app = await harness.app(
      [
        consumerClass({ group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' }, (m) => {
          seen.record(m.payload.seq);
          if (answer === 'later') return ConsumeStatus.RECONSUME_LATER;
          if (answer === 'throw') throw new TypeError('no');
          return undefined;
        }),
      ],
      { hooks: [hook] },
    );
    await harness.produce(topic, 3);
    await waitFor(() =>
      app
        .consumer(group)
        .status()
        .queues.some((q) => q.persistedOffset === 3),
    );
    const [, message] = harness.broker.messages(topic);
    const direct = () => harness.broker.consumeMessageDirectly(group, app.clientId, message!);
    expect(await direct()).toMatchObject({ order: false, result: 'CR_SUCCESS' });
    answer = 'later';
    expect(await direct()).toMatchObject({ result: 'CR_LATER' });
    answer = 'throw';
    const thrown = await direct();
    expect(thrown).toMatchObject({ result: 'CR_THROW_EXCEPTION', remark: 'TypeError: no' });
    expect(thrown.spentTimeMs).toBeGreaterThanOrEqual(0);
    expect(seen.counts.get(1)).toBe(4);
    expect(seen.total).toBe(6);
    expect(hooked).toBe(6);
    // Nothing was committed, retried or sent back.
    expect(harness.broker.queryConsumerOffset(group, { topic, brokerName: message!.brokerName, queueId: 0 })).toBe(3);
    expect(harness.broker.messages(`%RETRY%${group}`)).toEqual([]);
    await expect(harness.broker.consumeMessageDirectly(uniqueName('other'), app.clientId, message!)).rejects.toThrow(
      /not exist in this consumer/,
    );
  });

  it("status() carries RocketMQ's running figures: per-topic TPS and RT, per-queue last pull and consume times", async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 2 });
    const seen = new Deliveries();
    const app = await harness.app([
      consumerClass({ group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', maxReconsumeTimes: 0 }, (m) => {
        seen.record(m.payload.seq);
        if (m.payload.seq % 100 === 0) throw new Error('fails');
      }),
    ]);
    await waitFor(
      () =>
        app
          .consumer(group)
          .status()
          .queues.filter((q) => q.mq.topic === topic).length === 2,
    );
    // Both timestamps start at the queue's creation; each must move past it. An idle pull is held for the whole
    // long poll (1 s here): once one has come back, consumption is later than creation by more than the 0.1 s
    // resolution of lastConsumeTimestamp.
    const created = new Map(
      app
        .consumer(group)
        .status()
        .queues.map((q) => [q.mq.queueId, q.lastConsumeTimestamp]),
    );
    await waitFor(() =>
      app
        .consumer(group)
        .status()
        .queues.every((q) => q.mq.topic !== topic || q.lastPullTimestamp > created.get(q.mq.queueId)!),
    );
    const startedAt = Date.now();
    await harness.produce(topic, 1_000);
    await waitFor(() => seen.unique === 1_000);
    await waitFor(
      () =>
        (app
          .consumer(group)
          .status()
          .topics.find((t) => t.topic === topic)?.consumeFailedMsgs ?? 0) === 10,
      { message: () => JSON.stringify(app.consumer(group).status().topics) },
    );
    const status = app.consumer(group).status();
    const figures = status.topics.find((t) => t.topic === topic)!;
    // At most about a minute has passed since the group started counting: 1,000 messages make at least 1000/70 per second.
    expect(figures.pullTPS).toBeGreaterThan(1_000 / 70);
    expect(figures.consumeOKTPS).toBeGreaterThan(990 / 70);
    expect(figures.consumeFailedTPS).toBeGreaterThan(0);
    expect(figures.pullRT).toBeGreaterThanOrEqual(0);
    expect(status.consumeMode).toBe('CONCURRENTLY');
    for (const q of status.queues.filter((q) => q.mq.topic === topic))
      expect(q.lastPullTimestamp).toBeGreaterThanOrEqual(startedAt);
    await waitFor(() =>
      app
        .consumer(group)
        .status()
        .queues.every((q) => q.mq.topic !== topic || q.lastConsumeTimestamp > created.get(q.mq.queueId)!),
    );
  });
});
