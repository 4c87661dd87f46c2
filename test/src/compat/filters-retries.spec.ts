import { createProducer, dlqTopicOf, retryTopicOf, type ConsumeContext, type Message } from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import { describe, expect, it } from 'vitest';
import { consumerClass } from '../support/fixtures';
import { useCompat } from './compat-context';

const harness = useCompat();

describe('SQL92 filters', () => {
  it('a group selecting "region = \'eu\' AND amount > 10" gets exactly the messages whose properties match', async () => {
    const topic = uniqueName('cSql');
    await harness().createTopic(topic, 2);
    const seen: number[] = [];
    await harness().app([
      consumerClass(
        {
          group: uniqueName('gSql'),
          topic,
          sql: "region = 'eu' AND amount > 10",
          consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
        },
        (m: Message<{ seq: number }>) => void seen.push(m.payload.seq),
      ),
    ]);
    const producer = await createProducer({
      transport: harness().transport(),
      group: uniqueName('pSql'),
      profile: 'fast',
      sendMsgTimeout: 10_000,
    });
    const expected: number[] = [];
    try {
      for (let seq = 0; seq < 40; seq++) {
        const region = seq % 2 === 0 ? 'eu' : 'us';
        const amount = seq;
        if (region === 'eu' && amount > 10) expected.push(seq);
        await producer.send({ topic, payload: { seq }, properties: { region, amount: String(amount) } });
      }
      // A last matching message: once it is handled, every earlier one the filter let through has been too.
      await producer.send({ topic, payload: { seq: 1_000 }, properties: { region: 'eu', amount: '1000' } });
      expected.push(1_000);
    } finally {
      await producer.stop();
    }
    await waitFor(() => expected.every((seq) => seen.includes(seq)), {
      timeoutMs: 60_000,
      message: () => `handled ${[...seen].sort((a, b) => a - b).join(',')}`,
    });
    expect([...seen].sort((a, b) => a - b)).toEqual(expected);
  });
});

describe('Retry and dead-letter queue', () => {
  it('a failing message comes again from %RETRY%<group> with its real topic, and after maxReconsumeTimes lands in %DLQ%<group>', async () => {
    const topic = uniqueName('cRetry');
    const group = uniqueName('gRetry');
    await harness().createTopic(topic, 1);
    const attempts: Array<{ from: string; topic: string; reconsumeTimes: number }> = [];
    await harness().app([
      consumerClass(
        { group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', maxReconsumeTimes: 2 },
        (m: Message<{ seq: number }>, ctx: ConsumeContext) => {
          if (m.payload.seq !== 0) return;
          attempts.push({ from: ctx.mq.topic, topic: m.topic, reconsumeTimes: m.reconsumeTimes });
          throw new Error('always fails');
        },
      ),
    ]);
    await harness().produce(topic, 3);
    // The harness's delay levels are all 1 s: two retries take a few seconds.
    await waitFor(() => attempts.length === 3, { timeoutMs: 60_000, message: () => JSON.stringify(attempts) });
    expect(attempts).toEqual([
      { from: topic, topic, reconsumeTimes: 0 },
      { from: retryTopicOf(group), topic, reconsumeTimes: 1 },
      { from: retryTopicOf(group), topic, reconsumeTimes: 2 },
    ]);
    const dead: Message<{ seq: number }>[] = [];
    await harness().app([
      consumerClass(
        { group: uniqueName('gDlqReader'), topic: dlqTopicOf(group), consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
        (m: Message<{ seq: number }>) => void dead.push(m),
      ),
    ]);
    await waitFor(() => dead.length >= 1, { timeoutMs: 60_000, message: 'the DLQ holds the failed message' });
    expect(dead.map((m) => m.payload.seq)).toEqual([0]);
    expect(attempts).toHaveLength(3);
  });
});
