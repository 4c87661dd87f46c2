import { createPullConsumer, type Message, type PullConsumer } from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import { isFastJsonObject, parseFastJsonBody, type FastJsonObject } from '@mqkit/transport-rocketmq/internal';
import { sendProbeRequest, type RocketMqCluster } from '@mqkit/transport-rocketmq/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { describeScenarios } from '../support/scenarios';
import { PULL_SCENARIOS } from './pull.scenarios';
import { RocketMqHarness, mqadmin, rocketMqBroker, testCluster } from '../support/rocketmq-fixtures';

const SEARCH_OFFSET_BY_TIMESTAMP = 29;
const GET_CONSUMER_RUNNING_INFO = 307;

let cluster: RocketMqCluster;
let harness: RocketMqHarness;
const consumers: PullConsumer[] = [];
beforeAll(async () => {
  cluster = await testCluster();
  harness = new RocketMqHarness(cluster);
});
afterEach(async () => void (await Promise.all(consumers.splice(0).map((c) => c.close()))));
afterAll(async () => harness?.close());

async function pullConsumer(
  group: string,
  extra: Partial<Parameters<typeof createPullConsumer>[0]> = {},
): Promise<PullConsumer> {
  const consumer = await createPullConsumer({
    transport: harness.transport(),
    group,
    profile: 'fast',
    instanceName: uniqueName('pull'),
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    ...extra,
  });
  consumers.push(consumer);
  return consumer;
}

async function pollUntil(consumer: PullConsumer, n: number): Promise<Message<{ seq: number }>[]> {
  const got: Message<{ seq: number }>[] = [];
  await waitFor(
    async () => {
      got.push(...((await consumer.poll({ timeoutMs: 500 })) as Message<{ seq: number }>[]));
      return got.length >= n;
    },
    { timeoutMs: 30_000, message: () => `${got.length}/${n}` },
  );
  return got;
}

const brokerAddr = (name: string) => cluster.brokers.find((b) => b.name === name)!.addr;

describeScenarios('the pull consumer', PULL_SCENARIOS, rocketMqBroker());

describe('the pull consumer on a real cluster', () => {
  it('assign 3 of 4 queues, seek, poll, commit: QUERY_CONSUMER_OFFSET and mqadmin consumerProgress show the commits of the 2 read', async () => {
    const topic = uniqueName('pull');
    const group = uniqueName('g');
    await harness.createTopic(topic, 2);
    await harness.produce(topic, 200);
    const consumer = await pullConsumer(group, { autoCommit: false });
    const queues = await consumer.queuesOf(topic);
    expect(queues).toHaveLength(4);
    const mine = [queues[0]!, queues[3]!];
    // Assigned and never read (paused): commit must leave it as the broker has it, with no offset.
    consumer.pause([queues[1]!]);
    await consumer.assign([...mine, queues[1]!]);
    await consumer.seek(mine[1]!, 5);
    const sizes = await Promise.all(
      mine.map(async (mq) => await (await harness.adminApp()).transport.offsets.maxOffset(mq)),
    );
    const got = await pollUntil(consumer, sizes[0]! + sizes[1]! - 5);
    for (const [i, mq] of mine.entries()) {
      const offsets = got
        .filter((m) => m.brokerName === mq.brokerName && m.queueId === mq.queueId)
        .map((m) => m.queueOffset);
      expect(offsets).toEqual([...Array(sizes[i]! - (i === 1 ? 5 : 0)).keys()].map((k) => k + (i === 1 ? 5 : 0)));
    }
    expect(got.every((m) => mine.some((q) => q.brokerName === m.brokerName && q.queueId === m.queueId))).toBe(true);
    await consumer.commit();
    const offsets = (await harness.adminApp()).transport.offsets;
    for (const [i, mq] of mine.entries()) {
      expect(await offsets.queryConsumerOffset(group, mq)).toBe(sizes[i]);
      expect(await consumer.committed(mq)).toBe(sizes[i]);
    }
    for (const mq of [queues[1]!, queues[2]!]) expect(await offsets.queryConsumerOffset(group, mq)).toBe(-1);
    // RocketMQ's own view: `#Topic #Broker Name #QID #Broker Offset #Consumer Offset ...`.
    const out = await mqadmin(['consumerProgress', '-n', cluster.namesrvAddr, '-g', group]);
    for (const [i, mq] of mine.entries()) {
      const row = new RegExp(`^${topic}\\s+${mq.brokerName}\\s+${mq.queueId}\\s+(\\d+)\\s+(\\d+)`, 'm').exec(out);
      expect(row, out).not.toBeNull();
      expect([Number(row![1]), Number(row![2])]).toEqual([sizes[i], sizes[i]]);
    }
    // It heartbeats as a pull consumer.
    const info = await sendProbeRequest(
      brokerAddr('broker-a'),
      {
        code: GET_CONSUMER_RUNNING_INFO,
        extFields: { consumerGroup: group, clientId: consumer.clientId, jstackEnable: 'false' },
      },
      cluster.probeOptions,
    );
    const body = parseFastJsonBody(info.body) as FastJsonObject;
    expect(isFastJsonObject(body) && (body.properties as FastJsonObject).PROP_CONSUME_TYPE).toBe('CONSUME_ACTIVELY');
  }, 120_000);

  it('offsetForTimestamp answers what the broker answers SEARCH_OFFSET_BY_TIMESTAMP', async () => {
    const topic = uniqueName('pullts');
    await harness.createTopic(topic, 1, ['broker-a']);
    await harness.produce(topic, 10);
    const consumer = await pullConsumer(uniqueName('g'));
    const [mq] = await consumer.queuesOf(topic);
    await consumer.assign([mq!]);
    const got = await pollUntil(consumer, 10);
    for (const time of [0, got[4]!.storeTimestamp, got[9]!.storeTimestamp + 1, Date.now() + 60_000]) {
      const answer = await sendProbeRequest(
        brokerAddr('broker-a'),
        { code: SEARCH_OFFSET_BY_TIMESTAMP, extFields: { topic, queueId: '0', timestamp: String(time) } },
        cluster.probeOptions,
      );
      expect(answer.code).toBe(0);
      expect(await consumer.offsetForTimestamp(mq!, time)).toBe(Number(answer.extFields.offset));
    }
    expect(await consumer.offsetForTimestamp(mq!, got[4]!.storeTimestamp)).toBeLessThanOrEqual(4);
  }, 60_000);
});
