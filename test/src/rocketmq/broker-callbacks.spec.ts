import {
  isFastJsonObject,
  parseFastJsonBody,
  fastJsonEntries,
  type FastJsonObject,
} from '@mqkit/transport-rocketmq/internal';
import { sendProbeRequest, type RocketMqCluster } from '@mqkit/transport-rocketmq/testing';
import type { Message } from '@mqkit/core';
import { Deliveries, uniqueName, waitFor } from '@mqkit/core/testing';
import { describe, expect, it } from 'vitest';
import { consumerClass } from '../support/fixtures';
import { RocketMqHarness, updateBrokerConfig, useRocketMqHarness } from '../support/rocketmq-fixtures';

const GET_CONSUMER_RUNNING_INFO = 307;

let cluster: RocketMqCluster;
let harness: RocketMqHarness;
useRocketMqHarness((c, h) => {
  cluster = c;
  harness = h;
});

describe('requests brokers send to the client, on a real cluster', () => {
  it('GET_CONSUMER_RUNNING_INFO through the broker: ConsumerRunningInfo JSON with the owned queues and subscriptions', async () => {
    const topic = uniqueName('info');
    const group = uniqueName('g');
    await harness.createTopic(topic, 2);
    const seen = new Deliveries();
    const app = await harness.app([
      consumerClass(
        { group, topic, tags: 'A || B', consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
        (m: Message<{ seq: number }>) => seen.record(m.payload.seq),
      ),
    ]);
    await harness.produce(topic, 40, { tags: (seq) => (seq % 2 === 0 ? 'A' : 'B') });
    await waitFor(
      () =>
        seen.unique === 40 &&
        app
          .consumer(group)
          .status()
          .queues.every((q) => q.committableOffset === q.maxOffset || q.mq.topic !== topic),
    );
    // What `mqadmin consumerStatus` does: ask a broker, which forwards to the client by its id and relays the answer.
    const broker = cluster.brokers[0]!;
    const response = await sendProbeRequest(
      broker.addr,
      {
        code: GET_CONSUMER_RUNNING_INFO,
        extFields: { consumerGroup: group, clientId: app.clientId, jstackEnable: 'false' },
      },
      cluster.probeOptions,
    );
    expect(response.code).toBe(0);
    const info = parseFastJsonBody(response.body) as FastJsonObject;
    expect(isFastJsonObject(info)).toBe(true);
    expect(info.properties).toMatchObject({
      PROP_CONSUME_TYPE: 'CONSUME_PASSIVELY',
      PROP_NAMESERVER_ADDR: cluster.namesrvAddr,
      consumerGroup: group,
      messageModel: 'CLUSTERING',
    });
    const subscriptions = (info.subscriptionSet as FastJsonObject[]).map((s) => [s.topic, s.subString]);
    expect(subscriptions).toEqual(
      expect.arrayContaining([
        [topic, 'A || B'],
        [`%RETRY%${group}`, '*'],
      ]),
    );
    // mqTable's keys are MessageQueue objects (fastjson's non-standard form), each with the committed offset.
    const table = fastJsonEntries(info.mqTable).map(([key, value]) => ({
      mq: key as FastJsonObject,
      pq: value as FastJsonObject,
    }));
    const own = table.filter((e) => e.mq.topic === topic);
    expect(own.map((e) => `${e.mq.brokerName}/${e.mq.queueId}`).sort()).toEqual([
      'broker-a/0',
      'broker-a/1',
      'broker-b/0',
      'broker-b/1',
    ]);
    const committed = own.reduce((sum, e) => sum + (e.pq.commitOffset as number), 0);
    expect(committed).toBe(40);
    // A group this client does not run: SYSTEM_ERROR, as the Java client answers.
    const unknown = await sendProbeRequest(
      broker.addr,
      {
        code: GET_CONSUMER_RUNNING_INFO,
        extFields: { consumerGroup: uniqueName('none'), clientId: app.clientId, jstackEnable: 'false' },
      },
      cluster.probeOptions,
    );
    expect(unknown.code).not.toBe(0);
  });

  it('RESET_CONSUMER_CLIENT_OFFSET pushed by brokers without server-side reset moves every member back', async () => {
    const topic = uniqueName('push');
    const group = uniqueName('g');
    await harness.createTopic(topic, 2);
    const seen = new Deliveries();
    const Handler = consumerClass(
      { group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
      (m: Message<{ seq: number }>) => seen.record(m.payload.seq),
    );
    const apps = [await harness.app([Handler]), await harness.app([Handler])];
    let offsetMoved = 0;
    for (const app of apps) app.on('consumer.pull', (e) => void (e.status === 'OFFSET_ILLEGAL' && offsetMoved++));
    await harness.produce(topic, 60);
    await waitFor(() => seen.unique === 60);
    await waitFor(() =>
      apps.every((a) =>
        a
          .consumer(group)
          .status()
          .queues.every((q) => q.committableOffset >= q.maxOffset),
      ),
    );
    // The brokers must hold those offsets too: one with no offset of the group refuses the reset (failed CI once).
    await harness.brokersCommitted(group, topic, 4);
    // The 4.x path: brokers push the new offsets to each member instead of answering the next pull with OFFSET_MOVED.
    await updateBrokerConfig(cluster, { useServerSideResetOffset: 'false' });
    try {
      await apps[0]!.consumer(group).resetOffsetByTimestamp(0);
      await waitFor(() => [...seen.counts.values()].filter((n) => n === 2).length === 60, {
        timeoutMs: 20_000,
        message: () => `${seen.total - 60} re-deliveries`,
      });
      expect(seen.total).toBe(120);
      // Pushed, not learnt from a pull answering PULL_OFFSET_MOVED.
      expect(offsetMoved).toBe(0);
    } finally {
      await updateBrokerConfig(cluster, { useServerSideResetOffset: 'true' });
    }
  });
});
