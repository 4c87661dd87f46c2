import { dlqTopicOf, retryTopicOf, type ConsumeContext, type Message } from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerClass } from '../support/fixtures';
import { RocketMqHarness, testCluster } from '../support/rocketmq-fixtures';

let harness: RocketMqHarness;
beforeAll(async () => {
  harness = new RocketMqHarness(await testCluster());
});
afterAll(async () => harness?.close());

describe('retry and DLQ on a real cluster', () => {
  it('a failing message is sent back, comes again on %RETRY%<group> with its real topic, and lands in the DLQ after maxReconsumeTimes', async () => {
    const topic = uniqueName('retry');
    const group = uniqueName('g');
    await harness.createTopic(topic, 2);
    const attempts = new Map<number, Array<{ from: string; topic: string; reconsumeTimes: number }>>();
    const Handler = consumerClass(
      { group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', maxReconsumeTimes: 2 },
      (m: Message<{ seq: number }>, ctx: ConsumeContext) => {
        const list = attempts.get(m.payload.seq) ?? [];
        list.push({ from: ctx.mq.topic, topic: m.topic, reconsumeTimes: m.reconsumeTimes });
        attempts.set(m.payload.seq, list);
        if (m.payload.seq % 5 === 0) throw new Error(`seq ${m.payload.seq} fails`);
        // seq 1 fails once, then succeeds on its first retry.
        if (m.payload.seq === 1 && m.reconsumeTimes === 0) throw new Error('once');
      },
    );
    const app = await harness.app([Handler]);
    const retries: Array<{ local: boolean }> = [];
    app.on('consumer.retry', (e) => retries.push(e));
    await harness.produce(topic, 20);
    const failing = [0, 5, 10, 15];
    // The test brokers' delay levels are all 1 s: two retries take a few seconds.
    await waitFor(
      () => failing.every((seq) => (attempts.get(seq)?.length ?? 0) >= 3) && (attempts.get(1)?.length ?? 0) >= 2,
      {
        timeoutMs: 30_000,
        message: () => JSON.stringify([...attempts].filter(([s]) => failing.includes(s) || s === 1)),
      },
    );
    for (const seq of failing) {
      expect(attempts.get(seq)).toEqual([
        { from: topic, topic, reconsumeTimes: 0 },
        { from: retryTopicOf(group), topic, reconsumeTimes: 1 },
        { from: retryTopicOf(group), topic, reconsumeTimes: 2 },
      ]);
    }
    expect(attempts.get(1)).toEqual([
      { from: topic, topic, reconsumeTimes: 0 },
      { from: retryTopicOf(group), topic, reconsumeTimes: 1 },
    ]);
    for (let seq = 0; seq < 20; seq++)
      if (!failing.includes(seq) && seq !== 1) expect(attempts.get(seq)).toHaveLength(1);

    // Past maxReconsumeTimes the broker dead-letters them: a reader of %DLQ%<group> finds exactly those four.
    const dead = new Map<number, number>();
    const DlqReader = consumerClass(
      { group: uniqueName('dlqReader'), topic: dlqTopicOf(group), consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
      (m: Message<{ seq: number }>) => {
        dead.set(m.payload.seq, m.reconsumeTimes);
      },
    );
    await harness.app([DlqReader]);
    await waitFor(() => dead.size === failing.length, {
      timeoutMs: 30_000,
      message: () => `DLQ holds ${[...dead.keys()]}`,
    });
    expect([...dead.keys()].sort((a, b) => a - b)).toEqual(failing);
    // Every failure went back through CONSUMER_SEND_MSG_BACK (none was retried locally after a failed send-back).
    expect(retries.length).toBe(failing.length * 3 + 1);
    expect(retries.every((r) => !r.local)).toBe(true);
    // Nothing more arrives on the group after the DLQ.
    expect(failing.every((seq) => attempts.get(seq)!.length === 3)).toBe(true);
  });
});
