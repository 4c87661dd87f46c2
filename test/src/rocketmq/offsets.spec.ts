import { formatConsumeTimestamp } from '@mqkit/core/internal';
import type { ConsumeFromWhere, Message } from '@mqkit/core';
import { Deliveries, uniqueName, waitFor } from '@mqkit/core/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { consumerClass } from '../support/fixtures';
import { RocketMqHarness, testCluster } from '../support/rocketmq-fixtures';
import type { RocketMqCluster } from '@mqkit/transport-rocketmq/testing';

let cluster: RocketMqCluster;
let harness: RocketMqHarness;
beforeAll(async () => {
  cluster = await testCluster();
});
afterEach(async () => harness?.close());

function recorder(
  group: string,
  topic: string,
  seen: Deliveries,
  consumeFromWhere: ConsumeFromWhere = 'CONSUME_FROM_FIRST_OFFSET',
  consumeTimestamp?: string,
) {
  return consumerClass({ group, topic, consumeFromWhere, consumeTimestamp }, (m: Message<{ seq: number }>) =>
    seen.record(m.payload.seq),
  );
}

/** Resolves once the wall clock has passed `t` (the broker stamps messages with the same clock). */
async function clockPast(t: number): Promise<void> {
  await waitFor(() => Date.now() > t, { timeoutMs: 5_000, intervalMs: 5 });
}

describe('offsets on a real cluster', () => {
  it('survive a consumer restart: the next instance of the group starts where the last one committed', async () => {
    harness = new RocketMqHarness(cluster);
    const topic = uniqueName('restart');
    const group = uniqueName('g');
    await harness.createTopic(topic, 2);
    const first = new Deliveries();
    const app = await harness.app([recorder(group, topic, first)], { instanceName: uniqueName('one') });
    await harness.produce(topic, 300);
    await waitFor(() => first.unique === 300, { message: () => `${first.unique}/300` });
    await app.stop();
    await harness.produce(topic, 200, { from: 300 });
    const second = new Deliveries();
    await harness.app([recorder(group, topic, second)], { instanceName: uniqueName('two') });
    await waitFor(() => second.unique === 200, { message: () => `${second.unique}/200` });
    // FIRST_OFFSET only applies without a committed offset: nothing from the first run comes back.
    expect([...second.counts.keys()].every((seq) => seq >= 300)).toBe(true);
    expect(second.missing(500).filter((seq) => seq >= 300)).toEqual([]);
  });

  it('consumeFromWhere: a new group starts at the last offset, the first, or the first message at a timestamp', async () => {
    harness = new RocketMqHarness(cluster);
    const topic = uniqueName('cfw');
    await harness.createTopic(topic, 2);
    await harness.produce(topic, 50);
    const afterFirst = Date.now();
    await clockPast(afterFirst + 1000 - (afterFirst % 1000) + 50);
    const stamp = formatConsumeTimestamp(Date.now()); // second resolution: after every message of the first batch
    await clockPast(Date.now() + 1000);
    await harness.produce(topic, 50, { from: 50 });
    const last = new Deliveries();
    const first = new Deliveries();
    const byTime = new Deliveries();
    await harness.app([recorder(uniqueName('gLast'), topic, last, 'CONSUME_FROM_LAST_OFFSET')]);
    await harness.app([recorder(uniqueName('gFirst'), topic, first, 'CONSUME_FROM_FIRST_OFFSET')]);
    await harness.app([recorder(uniqueName('gTime'), topic, byTime, 'CONSUME_FROM_TIMESTAMP', stamp)]);
    await waitFor(() => first.unique === 100 && byTime.unique === 50, {
      message: () => `first ${first.unique}/100, byTime ${byTime.unique}/50`,
    });
    await harness.produce(topic, 10, { from: 100 });
    await waitFor(() => last.unique === 10 && first.unique === 110 && byTime.unique === 60);
    expect([...last.counts.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => 100 + i));
    expect([...byTime.counts.keys()].every((seq) => seq >= 50)).toBe(true);
  });

  it('reset to a timestamp: the group re-consumes what was stored from then on, and nothing before', async () => {
    harness = new RocketMqHarness(cluster);
    const topic = uniqueName('reset');
    const group = uniqueName('g');
    await harness.createTopic(topic, 2);
    const seen = new Deliveries();
    const apps = [await harness.app([recorder(group, topic, seen)]), await harness.app([recorder(group, topic, seen)])];
    let offsetMoved = 0;
    for (const app of apps) app.on('consumer.pull', (e) => void (e.status === 'OFFSET_ILLEGAL' && offsetMoved++));
    await harness.produce(topic, 100);
    const mark = Date.now();
    await clockPast(mark + 20);
    await harness.produce(topic, 100, { from: 100 });
    await waitFor(() => seen.unique === 200, { message: () => `${seen.unique}/200` });
    // Committed at the broker first (the fast profile persists every 200 ms), so a late commit cannot undo the reset.
    await waitFor(() =>
      apps.every((a) =>
        a
          .consumer(group)
          .status()
          .queues.every((q) => q.committableOffset >= q.maxOffset),
      ),
    );
    await harness.brokersCommitted(group, topic, 4);
    const before = seen.total;
    await apps[0]!.consumer(group).resetOffsetByTimestamp(mark);
    // RocketMQ 5.x resets at the broker: each queue's next pull answers PULL_OFFSET_MOVED with the new offset.
    await waitFor(() => [...seen.counts].filter(([seq, n]) => seq >= 100 && n === 2).length === 100, {
      timeoutMs: 30_000,
      message: () => `${seen.total - before} re-deliveries`,
    });
    expect([...seen.counts].filter(([seq, n]) => seq < 100 && n > 1)).toEqual([]);
    expect(seen.total - before).toBe(100);
    expect(offsetMoved).toBeGreaterThan(0);
  });
});
