import { afterEach, describe, expect, it } from 'vitest';
import { encodeMessageRecord } from '../protocol/message-record.encoder';
import { RequestCode } from '../protocol/remoting-codes';
import { FakeCluster } from '../transport/fake-cluster.fixture';
import { RocketMqClusterAdmin } from './cluster-admin.role';

let cluster: FakeCluster;
afterEach(async () => cluster?.stop());

const json = (value: string) => Buffer.from(value);
const mqKey = (topic: string, broker: string, q: number) =>
  `{"brokerName":"${broker}","queueId":${q},"topic":"${topic}"}`;
const connection = (clientId: string, port: number) =>
  `{"clientAddr":"127.0.0.1:${port}","clientId":"${clientId}","language":"NODE_JS","version":479}`;
const connections = (...list: string[]) =>
  json(
    `{"connectionSet":[${list.join(',')}],"consumeFromWhere":"CONSUME_FROM_LAST_OFFSET","consumeType":"CONSUME_PASSIVELY","messageModel":"CLUSTERING","subscriptionTable":{}}`,
  );

/** The offset message id of a record stored by a fake broker at `offset`. */
function offsetIdOf(address: string, offset: number): string {
  const [ip, port] = address.split(':');
  const buf = Buffer.alloc(16);
  for (const [i, p] of ip!.split('.').entries()) buf.writeUInt8(Number(p), i);
  buf.writeInt32BE(Number(port), 4);
  buf.writeBigInt64BE(BigInt(offset), 8);
  return buf.toString('hex').toUpperCase();
}

describe('RocketMqClusterAdmin', () => {
  it("asks every broker of the group's retry topic for consume stats and merges the rows; an unknown group has none", async () => {
    cluster = await FakeCluster.start();
    cluster.routes.set('%RETRY%g', [
      { name: 'broker-a', queues: 1 },
      { name: 'broker-b', queues: 1 },
    ]);
    cluster.onBroker = (name, request, peer) =>
      peer.reply(request, {
        body: json(
          `{"consumeTps":0.0,"offsetTable":{${mqKey('T', name, 0)}:{"brokerOffset":${name === 'broker-a' ? 5 : 7},"consumerOffset":2,"lastTimestamp":0,"pullOffset":2}}}`,
        ),
      });
    const admin = new RocketMqClusterAdmin(cluster.session());
    const rows = await admin.consumeStats('g');
    expect(rows.map((r) => [r.mq.brokerName, r.brokerOffset, r.consumerOffset]).sort()).toEqual([
      ['broker-a', 5, 2],
      ['broker-b', 7, 2],
    ]);
    expect(cluster.received('broker-a', RequestCode.GET_CONSUME_STATS)[0]!.extFields).toEqual({ consumerGroup: 'g' });
    expect(await admin.consumeStats('nobody')).toEqual([]);
    await expect(admin.topicStats('missing')).rejects.toMatchObject({
      name: 'BrokerError',
      responseCode: 17,
      kind: 'topic-not-found',
    });
  });

  it("merges connections from every broker (first address wins) and finds a member's queues on a broker it is connected to", async () => {
    cluster = await FakeCluster.start();
    cluster.routes.set('%RETRY%g', [
      { name: 'broker-a', queues: 1 },
      { name: 'broker-b', queues: 1 },
    ]);
    cluster.onBroker = (name, request, peer) => {
      if (request.code === RequestCode.GET_CONSUMER_CONNECTION_LIST) {
        peer.reply(request, {
          body:
            name === 'broker-a'
              ? connections(connection('c1', 1001))
              : connections(connection('c1', 2001), connection('c2', 2002)),
        });
      } else if (name === 'broker-a' && request.extFields.clientId === 'c2') {
        peer.reply(request, { code: 1, remark: 'The Consumer <g> <c2> not online' });
      } else {
        peer.reply(request, { body: json(`{"mqTable":{${mqKey('T', 'broker-b', 3)}:{}},"properties":{}}`) });
      }
    };
    const admin = new RocketMqClusterAdmin(cluster.session());
    const found = await admin.consumerConnections('g');
    expect(found?.connections.map((c) => [c.clientId, c.clientAddr])).toEqual([
      ['c1', '127.0.0.1:1001'],
      ['c2', '127.0.0.1:2002'],
    ]);
    expect(await admin.ownedQueues('g', 'c2')).toEqual([{ topic: 'T', brokerName: 'broker-b', queueId: 3 }]);
    cluster.onBroker = (_name, request, peer) =>
      peer.reply(request, { code: 206, remark: 'the consumer group[g] not online' });
    expect(await admin.consumerConnections('g')).toBeUndefined();
    await expect(admin.ownedQueues('g', 'c1')).rejects.toMatchObject({ name: 'BrokerError', responseCode: 206 });
  });

  it('views a message only on a broker of the cluster; ids naming another address, or none, are undefined', async () => {
    cluster = await FakeCluster.start(['broker-a']);
    const address = cluster.broker('broker-a').address;
    const stored = encodeMessageRecord({
      topic: 'T',
      queueId: 0,
      queueOffset: 3,
      commitLogOffset: 512,
      body: json('{}'),
      bornTimestamp: 1,
      bornHost: '127.0.0.1:1',
      storeTimestamp: 2,
      storeHost: address,
    });
    cluster.onBroker = (_name, request, peer) =>
      request.extFields.offset === '512'
        ? peer.reply(request, { body: stored })
        : peer.reply(request, {
            code: 1,
            remark: `can not find message by the offset, ${request.extFields.offset}`,
          });
    const admin = new RocketMqClusterAdmin(cluster.session());
    const viewed = await admin.viewMessage(offsetIdOf(address, 512));
    expect([viewed?.brokerName, viewed?.queueOffset, viewed?.offsetMsgId]).toEqual([
      'broker-a',
      3,
      offsetIdOf(address, 512),
    ]);
    expect(await admin.viewMessage(offsetIdOf(address, 1024))).toBeUndefined();
    expect(await admin.viewMessage(offsetIdOf('127.0.0.2:10911', 512))).toBeUndefined();
    expect(await admin.viewMessage('7F00000130391B6D358600A1B2C30001')).toBeUndefined();
    expect(cluster.received('broker-a', RequestCode.VIEW_MESSAGE_BY_ID)).toHaveLength(2);
  });

  it('queries every broker of the topic, creates subscription groups on masters, and flags system topics', async () => {
    cluster = await FakeCluster.start();
    for (const topic of ['T', 'TBW102', 'DefaultCluster', 'broker-a', 'DefaultCluster_REPLY_TOPIC', '%DLQ%g'])
      cluster.routes.set(topic, [
        { name: 'broker-a', queues: 1 },
        { name: 'broker-b', queues: 1 },
      ]);
    cluster.onBroker = (_name, request, peer) =>
      peer.reply(
        request,
        request.code === RequestCode.QUERY_MESSAGE
          ? { code: 22, remark: 'can not find message, maybe time range not correct' }
          : {},
      );
    const admin = new RocketMqClusterAdmin(cluster.session());
    expect(
      await admin.queryMessages({
        topic: 'T',
        key: 'k',
        maxNum: 64,
        beginTimestamp: 0,
        endTimestamp: 10,
        uniqueKey: false,
      }),
    ).toEqual([]);
    expect(cluster.received('broker-b', RequestCode.QUERY_MESSAGE)[0]!.extFields).toMatchObject({
      topic: 'T',
      key: 'k',
      _UNIQUE_KEY_QUERY: 'false',
    });
    await admin.createSubscriptionGroup(
      {
        groupName: 'g',
        consumeEnable: true,
        consumeFromMinEnable: true,
        consumeBroadcastEnable: true,
        consumeMessageOrderly: false,
        retryQueueNums: 1,
        retryMaxTimes: 2,
        brokerId: 0,
        whichBrokerWhenConsumeSlowly: 1,
        notifyConsumerIdsChangedEnable: true,
        consumeTimeoutMinute: 15,
      },
      ['broker-b'],
    );
    expect(cluster.received('broker-a', RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP)).toHaveLength(0);
    expect(
      JSON.parse(cluster.received('broker-b', RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP)[0]!.body.toString()),
    ).toMatchObject({ groupName: 'g', retryMaxTimes: 2 });
    const listed = await admin.topics();
    expect(Object.fromEntries(listed.map((t) => [t.topic, t.system]))).toEqual({
      T: false,
      TBW102: true,
      DefaultCluster: true,
      'broker-a': true,
      DefaultCluster_REPLY_TOPIC: true,
      '%DLQ%g': false,
    });
  });
});
