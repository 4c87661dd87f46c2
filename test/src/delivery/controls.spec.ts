import { Deliveries, uniqueName, waitFor } from '@mqkit/core/testing';
import type { MessageQueue } from '@mqkit/core';
import { afterEach, describe, expect, it } from 'vitest';
import { Harness, consumerClass } from '../support/fixtures';

let harness: Harness;
afterEach(async () => harness?.close());

describe('operational controls', () => {
  it('reset to a timestamp reaches every member of a running group of 3 and re-delivers from the right offset', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 6 });
    const seen = new Deliveries();
    const firstOffsets = new Map<number, number[]>();
    let resetDone = false;
    const Handler = consumerClass({ group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' }, (m) => {
      seen.record(m.payload.seq);
      if (resetDone) firstOffsets.set(m.queueId, [...(firstOffsets.get(m.queueId) ?? []), m.queueOffset]);
    });
    const apps = [await harness.app([Handler]), await harness.app([Handler]), await harness.app([Handler])];
    await harness.produce(topic, 600);
    await waitFor(() => seen.unique === 600);
    // The mark lies strictly between the two batches' store times: wait for the clock, not for a timer (which can
    // fire early against Date.now()).
    const firstStoredBy = Date.now();
    await waitFor(() => Date.now() > firstStoredBy);
    const mark = Date.now();
    await waitFor(() => Date.now() > mark);
    await harness.produce(topic, 600, { from: 600 });
    await waitFor(() => seen.unique === 1_200);
    const expected = new Map<number, number>();
    for (let q = 0; q < 6; q++)
      expected.set(q, harness.broker.searchOffset({ topic, brokerName: 'broker-a', queueId: q }, mark));
    resetDone = true;
    const totalBefore = seen.total;
    await apps[1]!.consumer(group).resetOffsetByTimestamp(mark);
    // Every queue, whichever member owns it, is consumed again from the first message stored at or after `mark`.
    await waitFor(() => seen.total - totalBefore === 600, {
      timeoutMs: 20_000,
      message: () => `${seen.total - totalBefore} re-delivered`,
    });
    for (let q = 0; q < 6; q++) expect(Math.min(...(firstOffsets.get(q) ?? [Infinity]))).toBe(expected.get(q));
    expect(
      new Set(
        apps.flatMap((a) =>
          a
            .consumer(group)
            .status()
            .queues.filter((x) => x.mq.topic === topic)
            .map((x) => x.mq.queueId),
        ),
      ).size,
    ).toBe(6);
  }, 30_000);

  it('messageQueueListener gets the full and the allocated set on every change', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 4 });
    const events: { member: string; all: MessageQueue[]; mine: MessageQueue[] }[] = [];
    const Handler = consumerClass({ group, topic }, () => undefined);
    const listener =
      (member: string) =>
      (e: { group: string; topic: string; mqAll: readonly MessageQueue[]; mqAssigned: readonly MessageQueue[] }) => {
        if (e.topic === topic) events.push({ member, all: [...e.mqAll], mine: [...e.mqAssigned] });
      };
    await harness.app([Handler], { messageQueueListener: listener('a') });
    await waitFor(() => events.some((e) => e.member === 'a' && e.mine.length === 4));
    await harness.app([Handler], { messageQueueListener: listener('b') });
    await waitFor(
      () =>
        events.some((e) => e.member === 'a' && e.mine.length === 2) &&
        events.some((e) => e.member === 'b' && e.mine.length === 2),
    );
    const a = events.filter((e) => e.member === 'a').at(-1)!;
    const b = events.filter((e) => e.member === 'b').at(-1)!;
    expect(b.all.map((q) => q.queueId)).toEqual([0, 1, 2, 3]);
    expect([...a.mine, ...b.mine].map((q) => q.queueId).sort()).toEqual([0, 1, 2, 3]);
  }, 20_000);
});
