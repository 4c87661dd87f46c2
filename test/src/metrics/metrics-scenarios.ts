import { PullStatus, retryTopicOf, type Message } from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import { METRIC_NAMES as N } from '@mqkit/metrics-prometheus';
import type { Scrape } from '@mqkit/metrics-prometheus/testing';
import { expect } from 'vitest';
import { consumerClass } from '../support/fixtures';
import type { Scenario } from '../support/scenarios';
import type { TestBroker } from '../support/test-broker';
import { MetricsRig } from './metrics-rig';

const queueOf = (mq: { brokerName: string; queueId: number }) => `${mq.brokerName}#${mq.queueId}`;

/** Every series of a family and its histogram lines, label sets as text, for comparing two scrapes. */
function seriesOf(scrape: Scrape, exclude: (name: string) => boolean): string[] {
  return scrape.exposition.samples
    .filter((s) => !exclude(s.name))
    .map((s) => `${s.name}${JSON.stringify(s.labels)}`)
    .sort();
}

/**
 * Two rounds of `perRound` messages, every 100th failing for good (maxReconsumeTimes 1: sent back once, then
 * dead-lettered), sent by a producer and consumed by an app that share one metrics value. Checks exact counts after
 * each round, and that the second round added no series: label cardinality does not grow with message count.
 */
async function twoRoundsUnderLoad(rig: MetricsRig, options: { queues: number; perRound: number }): Promise<Scrape> {
  const { timeoutMs } = rig.broker;
  const topic = uniqueName('metrics');
  const group = uniqueName('g');
  await rig.broker.createTopic(topic, options.queues);
  const fails = (seq: number) => seq % 100 === 0;
  const Handler = consumerClass(
    { group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', maxReconsumeTimes: 1 },
    (m: Message<{ seq: number }>) => {
      if (fails(m.payload.seq)) throw new Error(`seq ${m.payload.seq} fails`);
    },
  );
  await rig.app([Handler]);
  const producer = await rig.producer(uniqueName('p'));
  const g = { consumer_group: group };
  const pullSeries = (name: string) => name.startsWith(N.pullLatency);
  let before: string[] = [];
  let scrape: Scrape | undefined;
  for (let round = 1; round <= 2; round++) {
    await rig.send(producer, topic, (round - 1) * options.perRound, options.perRound);
    const total = round * options.perRound;
    const failed = Math.ceil(total / 100);
    // Settled: every success counted and every failure dead-lettered, and both topics' long polls came back idle.
    scrape = await waitFor(
      async () => {
        const s = await rig.scrape();
        const settled =
          s.value(N.consumedMessages, { ...g, topic, result: 'success' }) === total - failed &&
          s.value(N.dlqMessages, { ...g, topic }) === failed &&
          [topic, retryTopicOf(group)].every(
            (t) => s.value(`${N.pullLatency}_count`, { ...g, topic: t, pull_status: PullStatus.NO_NEW_MSG }) > 0,
          );
        return settled ? s : undefined;
      },
      {
        timeoutMs,
        intervalMs: 100,
        message: () => `round ${round}: ${total - failed} successes and ${failed} dead letters`,
      },
    );
    expect(scrape.value(N.consumedMessages, { ...g, topic, result: 'failure' })).toBe(failed);
    // The failures came once more from %RETRY%<group>, failed again and went to the DLQ.
    expect(scrape.value(N.consumedMessages, { ...g, topic: retryTopicOf(group), result: 'failure' })).toBe(failed);
    expect(scrape.value(N.consumedMessages, { ...g, topic: retryTopicOf(group), result: 'success' })).toBe(0);
    expect(scrape.value(N.retriedMessages, { ...g, topic, mode: 'broker' })).toBe(failed);
    expect(scrape.value(N.retriedMessages, { ...g, topic, mode: 'local' })).toBe(0);
    expect(scrape.value(`${N.processTime}_count`, { ...g, topic })).toBe(total);
    expect(scrape.value(`${N.processTime}_count`, { ...g, topic, invocation_status: 'failure' })).toBe(failed);
    expect(scrape.value(N.sentMessages, { topic, kind: 'send', result: 'success' })).toBe(total);
    expect(scrape.value(`${N.sendCostTime}_count`, { topic, invocation_status: 'success' })).toBe(total);
    expect(scrape.value(`${N.pullLatency}_count`, { ...g, topic, pull_status: PullStatus.FOUND })).toBeGreaterThan(0);
    expect(scrape.value(N.queueLag, { ...g, topic })).toBe(0);
    const series = seriesOf(scrape, pullSeries);
    if (round === 2) expect(series).toEqual(before);
    before = series;
  }
  // Pull latency is labelled by status: at most RocketMQ's four per group and topic, whatever the traffic.
  const statuses = new Set(scrape!.samples(`${N.pullLatency}_count`).map((s) => s.labels.pull_status));
  expect([...statuses].every((s) => Object.values(PullStatus).includes(s as PullStatus))).toBe(true);
  // No label holds anything per message.
  expect(scrape!.text).not.toMatch(/msg_?id|"seq/i);
  return scrape!;
}

/**
 * A paused consumer pulls nothing, so what is sent meanwhile waits on the broker: the lag gauge of each queue says
 * exactly how many messages were sent to it. Resumed, they are consumed and the lag goes back to 0.
 */
async function lagOfPausedConsumer(rig: MetricsRig, options: { queues: number }): Promise<void> {
  const { timeoutMs } = rig.broker;
  const topic = uniqueName('paused');
  const group = uniqueName('g');
  await rig.broker.createTopic(topic, options.queues);
  const Handler = consumerClass({ group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' }, () => undefined);
  const app = await rig.app([Handler]);
  const producer = await rig.producer(uniqueName('p'));
  const g = { consumer_group: group, topic };
  const first = await rig.send(producer, topic, 0, 20);
  const queues = new Set(first.map((r) => queueOf(r.messageQueue)));
  await waitFor(async () => (await rig.scrape()).value(N.consumedMessages, { ...g, result: 'success' }) === 20, {
    timeoutMs,
    message: 'the first 20 consumed',
  });
  await waitFor(async () => (await rig.scrape()).samples(N.queueLag, g).length === queues.size, {
    timeoutMs,
    message: `lag of ${queues.size} owned queues`,
  });

  // Paused, each queue's pull loop ends once its pull in flight answers: after that nothing is pulled.
  const answered = new Set<string>();
  const off = app.on('consumer.pull', (e) => {
    if (e.mq.topic === topic) answered.add(queueOf(e.mq));
  });
  await app.consumer(group).pause();
  await waitFor(() => [...queues].every((q) => answered.has(q)), {
    timeoutMs,
    message: () => `pull answers after the pause: ${[...answered]}`,
  });
  off();
  const later = await rig.send(producer, topic, 20, 30);
  const expected = new Map<string, number>();
  for (const r of later) expected.set(queueOf(r.messageQueue), (expected.get(queueOf(r.messageQueue)) ?? 0) + 1);

  const paused = await rig.scrape();
  const lag = new Map(
    paused.samples(N.queueLag, g).map((s) => [`${s.labels.broker_name}#${s.labels.queue_id}`, s.value]),
  );
  for (const q of queues) expect(lag.get(q) ?? 0).toBe(expected.get(q) ?? 0);
  expect(paused.value(N.queueLag, g)).toBe(30);
  expect(paused.value(N.consumedMessages, { ...g, result: 'success' })).toBe(20);
  expect(paused.value(N.cachedMessages, g)).toBe(0);

  app.consumer(group).resume();
  await waitFor(
    async () => {
      const s = await rig.scrape();
      return s.value(N.consumedMessages, { ...g, result: 'success' }) === 50 && s.value(N.queueLag, g) === 0;
    },
    { timeoutMs, message: 'all 50 consumed and no lag after resume' },
  );
}

/**
 * A handler call that does not return keeps its message cached and in flight, and holds the committable offset of
 * its queue: the gauges show 1 cached message of its body size, 1 call in flight, and the lag of everything sent to
 * its queue (seq 0 is the first message there). Released, all three go back to 0.
 */
async function gaugesOfABlockedHandler(rig: MetricsRig, options: { queues: number }): Promise<void> {
  const { timeoutMs } = rig.broker;
  const topic = uniqueName('blocked');
  const group = uniqueName('g');
  await rig.broker.createTopic(topic, options.queues);
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const Handler = consumerClass(
    { group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
    (m: Message<{ seq: number }>) => (m.payload.seq === 0 ? gate : undefined),
  );
  await rig.app([Handler]);
  const producer = await rig.producer(uniqueName('p'));
  // One at a time, so that seq 0 is the first message of its queue.
  const sent = await rig.send(producer, topic, 0, 10, 1);
  const behindSeq0 = sent.filter((r) => queueOf(r.messageQueue) === queueOf(sent[0]!.messageQueue)).length;
  const g = { consumer_group: group, topic };
  try {
    const blocked = await waitFor(
      async () => {
        const s = await rig.scrape();
        return s.value(N.consumedMessages, { ...g, result: 'success' }) === 9 && s.value(N.queueLag, g) === behindSeq0
          ? s
          : undefined;
      },
      { timeoutMs, message: `9 consumed and a lag of ${behindSeq0}` },
    );
    expect(blocked.value(N.cachedMessages, g)).toBe(1);
    expect(blocked.value(N.cachedBytes, g)).toBe(Buffer.byteLength(JSON.stringify({ seq: 0 })));
    expect(blocked.value(N.inflightCalls, g)).toBe(1);
  } finally {
    release();
  }
  await waitFor(
    async () => {
      const s = await rig.scrape();
      return (
        s.value(N.consumedMessages, { ...g, result: 'success' }) === 10 &&
        s.value(N.queueLag, g) + s.value(N.cachedMessages, g) + s.value(N.inflightCalls, g) === 0
      );
    },
    { timeoutMs, message: 'released: 10 consumed, nothing cached, in flight or behind' },
  );
}

/** A rig on the test's broker, closed with it. */
function rigOn(broker: TestBroker): MetricsRig {
  const rig = new MetricsRig(broker);
  broker.onClose(() => rig.close());
  return rig;
}

/** Prometheus metrics scraped over HTTP, on both brokers (their topics on both brokers, so lag series name each). */
export const PROMETHEUS_SCENARIOS: readonly Scenario[] = [
  {
    title:
      'counts 2 rounds of messages (5,000 each embedded, 500 on a real cluster) exactly (successes, failures, retries, DLQ, sends) and adds no series in the second round',
    timeoutMs: { embedded: 120_000, rocketmq: 240_000 },
    run: async (broker) => {
      // The real cluster's delay levels are all 1 s, so the retry and the dead letter of each failure take a second.
      const embedded = broker.kind === 'embedded';
      const scrape = await twoRoundsUnderLoad(rigOn(broker), {
        queues: embedded ? 4 : 2,
        perRound: embedded ? 5_000 : 500,
      });
      // Bounded: the whole scrape is a few hundred lines however many messages went through.
      expect(scrape.seriesCount).toBeLessThan(400);
      const lagBrokers = new Set(scrape.samples(N.queueLag).map((s) => s.labels.broker_name));
      expect(lagBrokers).toEqual(new Set(broker.brokerNames));
      expect(lagBrokers.size).toBe(2);
    },
  },
  {
    title: "a paused consumer's lag gauges say how many messages were sent to each queue meanwhile",
    timeoutMs: { embedded: 60_000, rocketmq: 180_000 },
    run: (broker) => lagOfPausedConsumer(rigOn(broker), { queues: broker.kind === 'embedded' ? 4 : 2 }),
  },
  {
    title: 'a blocked handler shows as 1 cached message, 1 call in flight and the lag of its queue',
    timeoutMs: { embedded: 60_000, rocketmq: 180_000 },
    run: (broker) => gaugesOfABlockedHandler(rigOn(broker), { queues: broker.kind === 'embedded' ? 2 : 1 }),
  },
];
