import type { Message } from '@mqkit/core';
import { Deliveries, uniqueName, waitFor } from '@mqkit/core/testing';
import type { RocketMqCluster } from '@mqkit/transport-rocketmq/testing';
import { describe, expect, it } from 'vitest';
import { consumerClass } from '../support/fixtures';
import { RocketMqHarness, mqadmin, useRocketMqHarness } from '../support/rocketmq-fixtures';

let cluster: RocketMqCluster;
let harness: RocketMqHarness;
useRocketMqHarness((c, h) => {
  cluster = c;
  harness = h;
});

describe("RocketMQ's own admin tool reads mqkit clients", () => {
  it('mqadmin consumerStatus -i <client> parses the ConsumerRunningInfo the transport answers', async () => {
    const topic = uniqueName('admin');
    const group = uniqueName('g');
    await harness.createTopic(topic, 2);
    const seen = new Deliveries();
    const app = await harness.app([
      consumerClass(
        { group, topic, tags: 'A', consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
        (m: Message<{ seq: number }>) => seen.record(m.payload.seq),
      ),
    ]);
    await harness.produce(topic, 8, { tags: () => 'A' });
    await waitFor(() => seen.unique === 8);
    const out = await mqadmin(['consumerStatus', '-n', cluster.namesrvAddr, '-g', group, '-i', app.clientId]);
    // ConsumerRunningInfo.formatString(): Java's fastjson read the properties, the subscriptions and every mqTable
    // entry (MessageQueue object keys) with its ProcessQueueInfo.
    expect(out).toMatch(/PROP_CONSUME_TYPE\s+: CONSUME_PASSIVELY/);
    expect(out).toMatch(new RegExp(`consumerGroup\\s+: ${group}`));
    expect(out).toMatch(new RegExp(`Topic: ${topic}\\s+ClassFilter: false\\s+SubExpression: A`));
    expect(out).toMatch(new RegExp(`Topic: %RETRY%${group}\\s+ClassFilter: false\\s+SubExpression: \\*`));
    let committed = 0;
    for (const broker of ['broker-a', 'broker-b']) {
      for (const q of [0, 1]) {
        const line = new RegExp(`^${topic}\\s+${broker}\\s+${q}\\s+(\\d+)\\s*$`, 'm').exec(out);
        expect(line, `consumer offset line of ${broker}/${q}`).not.toBeNull();
        committed += Number(line![1]);
      }
    }
    expect(committed).toBe(8);
    expect(out).toMatch(
      new RegExp(`${topic}\\s+broker-b\\s+1\\s+ProcessQueueInfo \\[commitOffset=\\d+, .*droped=false`),
    );
  }, 120_000);
});

describe("RocketMQ's own admin tool drives mqkit clients", () => {
  it("mqadmin consumerStatus shows non-zero pull and consume TPS, the queues' last pull and consume times and PROP_CONSUMEORDERLY", async () => {
    const topic = uniqueName('tps');
    const group = uniqueName('g');
    await harness.createTopic(topic, 2);
    const seen = new Deliveries();
    const app = await harness.app([
      consumerClass({ group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' }, (m: Message<{ seq: number }>) =>
        seen.record(m.payload.seq),
      ),
    ]);
    // Both ProcessQueueInfo timestamps start at the queue's creation: an idle pull held for the long poll (1 s)
    // puts that creation well before this run's consumption (lastConsumeTimestamp is kept to 0.1 s).
    const queues = () =>
      app
        .consumer(group)
        .status()
        .queues.filter((q) => q.mq.topic === topic);
    await waitFor(() => queues().length === 4);
    const created = new Map(queues().map((q) => [`${q.mq.brokerName}/${q.mq.queueId}`, q.lastConsumeTimestamp]));
    await waitFor(() =>
      queues().every((q) => q.lastPullTimestamp > created.get(`${q.mq.brokerName}/${q.mq.queueId}`)!),
    );
    const startedAt = Date.now();
    await harness.produce(topic, 2_000);
    await waitFor(() => seen.unique === 2_000, { timeoutMs: 30_000 });
    const out = await mqadmin(['consumerStatus', '-n', cluster.namesrvAddr, '-g', group, '-i', app.clientId]);
    expect(out).toMatch(/PROP_CONSUMEORDERLY\s+: false/);
    // `#Consumer RT&TPS#`: topic, pull RT, pull TPS, consume RT, consume OK TPS, consume failed TPS, failed in the hour.
    // The rates span at most about a minute: 2,000 messages within it make each TPS at least 2000/70.
    const row = new RegExp(
      `^${topic}\\s+([\\d.]+)\\s+([\\d.]+)\\s+([\\d.]+)\\s+([\\d.]+)\\s+([\\d.]+)\\s+(\\d+)\\s*$`,
      'm',
    ).exec(out);
    expect(row, out).not.toBeNull();
    const [pullRT, pullTPS, , okTPS, failedTPS, failedMsgs] = row!.slice(1).map(Number);
    expect(pullTPS).toBeGreaterThan(2_000 / 70);
    expect(okTPS).toBeGreaterThan(2_000 / 70);
    expect(pullRT).toBeGreaterThanOrEqual(0);
    expect([failedTPS, failedMsgs]).toEqual([0, 0]);
    // ProcessQueueInfo's lastPullTimestamp and lastConsumeTimestamp are times of this run, not 0.
    const stamps = [
      ...out.matchAll(
        new RegExp(
          `${topic}\\s+broker-[ab]\\s+\\d\\s+ProcessQueueInfo \\[.*lastPullTimestamp=(\\d+), lastConsumeTimestamp=(\\d+)`,
          'g',
        ),
      ),
    ];
    expect(stamps).toHaveLength(4);
    for (const [, pull, consume] of stamps) {
      expect(Number(pull)).toBeGreaterThanOrEqual(startedAt);
      expect(Number(consume)).toBeGreaterThanOrEqual(startedAt - 100);
    }
  }, 120_000);

  it('mqadmin queryMsgById -g -d (CONSUME_MESSAGE_DIRECTLY) runs the handler once more and moves no offset', async () => {
    const topic = uniqueName('direct');
    const group = uniqueName('g');
    await harness.createTopic(topic, 1);
    const seen = new Deliveries();
    const ids = new Map<number, string>();
    let failNow = false;
    const app = await harness.app([
      consumerClass({ group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' }, (m: Message<{ seq: number }>) => {
        seen.record(m.payload.seq);
        ids.set(m.payload.seq, m.offsetMsgId);
        if (failNow) throw new Error(`refused ${m.payload.seq}`);
      }),
    ]);
    await harness.produce(topic, 5);
    const persisted = () =>
      app
        .consumer(group)
        .status()
        .queues.filter((q) => q.mq.topic === topic)
        .reduce((n, q) => n + Math.max(0, q.persistedOffset), 0);
    await waitFor(() => seen.unique === 5 && persisted() === 5);
    const resend = (seq: number) =>
      mqadmin([
        'queryMsgById',
        '-n',
        cluster.namesrvAddr,
        '-t',
        topic,
        '-i',
        ids.get(seq)!,
        '-g',
        group,
        '-d',
        app.clientId,
      ]);
    expect(await resend(1)).toMatch(
      /ConsumeMessageDirectlyResult \[order=false, autoCommit=true, consumeResult=CR_SUCCESS, remark=null, spentTimeMills=\d+\]/,
    );
    expect(seen.counts.get(1)).toBe(2);
    failNow = true;
    expect(await resend(2)).toMatch(/consumeResult=CR_THROW_EXCEPTION, remark=Error: refused 2/);
    expect(seen.counts.get(2)).toBe(2);
    // Nothing was committed, retried or sent back for the direct calls.
    const offsets = (await harness.adminApp()).transport.offsets;
    let committed = 0;
    for (const mq of await (await harness.routes()).subscribeQueues(topic))
      committed += Math.max(0, await offsets.queryConsumerOffset(group, mq));
    expect(committed).toBe(5);
    expect(seen.total).toBe(7);
  }, 120_000);
});
