import { parseSubscription, type BrokerCallbacks, type MessageQueue } from '@mqkit/core';
import { waitFor } from '@mqkit/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeMessageRecord } from '../protocol/message-record.encoder';
import { RequestCode, ResponseCode } from '../protocol/remoting-codes';
import { parseFastJsonBody, type FastJsonObject } from '../protocol/fastjson.parser';
import { FakeCluster } from '../transport/fake-cluster.fixture';
import { brokerRequestHandler } from './broker-request.handler';
import { RocketMqGroupMembership } from './group-membership.role';
import { RocketMqQueueLocks } from './queue-locks.role';

let cluster: FakeCluster;
afterEach(async () => cluster?.stop());

async function setup(callbacks: BrokerCallbacks | undefined) {
  cluster = await FakeCluster.start(['broker-a']);
  cluster.routes.set('T', [{ name: 'broker-a', queues: 1 }]);
  const session = cluster.session({}, '10.0.0.1@app');
  const membership = new RocketMqGroupMembership(session);
  session.onBrokerRequest(
    brokerRequestHandler({ session, membership, locks: new RocketMqQueueLocks(session), callbacks }),
  );
  // A heartbeat opens the connection the broker then uses for its own requests.
  await membership.heartbeat([
    {
      group: 'g',
      messageModel: 'CLUSTERING',
      consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
      subscriptions: [parseSubscription('T', '*')],
    },
  ]);
  const peer = cluster.broker('broker-a').last;
  return { session, membership, peer };
}

describe('answers to broker requests', () => {
  it('NOTIFY_CONSUMER_IDS_CHANGED (oneway) emits the group on the membership changes', async () => {
    const { membership, peer } = await setup(undefined);
    const groups: string[] = [];
    membership.changes$.subscribe((g) => groups.push(g));
    peer.send(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, { oneway: true, extFields: { consumerGroup: 'g' } });
    await waitFor(() => groups.length === 1);
    expect(groups).toEqual(['g']);
  });

  it("RESET_CONSUMER_CLIENT_OFFSET hands the offsets to core's callbacks", async () => {
    const resets: Array<[string, ReadonlyArray<{ mq: MessageQueue; offset: number }>]> = [];
    const { peer } = await setup({
      resetOffsets: async (group, offsets) => void resets.push([group, offsets]),
      runningInfo: () => undefined,
      consumeDirectly: async () => undefined,
    });
    const body = Buffer.from('{"offsetTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:12}}');
    peer.send(RequestCode.RESET_CONSUMER_CLIENT_OFFSET, {
      oneway: true,
      extFields: { group: 'g', topic: 'T', timestamp: '5', isForce: 'false' },
      body,
    });
    await waitFor(() => resets.length === 1);
    expect(resets[0]).toEqual(['g', [{ mq: { topic: 'T', brokerName: 'broker-a', queueId: 0 }, offset: 12 }]]);
  });

  it('GET_CONSUMER_RUNNING_INFO answers ConsumerRunningInfo, or SYSTEM_ERROR for a group this client does not run', async () => {
    const { peer } = await setup({
      resetOffsets: async () => undefined,
      runningInfo: () => undefined,
      consumeDirectly: async () => undefined,
    });
    const known = await peer.send(RequestCode.GET_CONSUMER_RUNNING_INFO, {
      extFields: { consumerGroup: 'g', clientId: '10.0.0.1@app', jstackEnable: 'false' },
    }).answer;
    expect(known.code).toBe(ResponseCode.SUCCESS);
    expect((parseFastJsonBody(known.body) as FastJsonObject).properties).toMatchObject({
      consumerGroup: 'g',
      PROP_CONSUME_TYPE: 'CONSUME_PASSIVELY',
    });
    const unknown = await peer.send(RequestCode.GET_CONSUMER_RUNNING_INFO, {
      extFields: { consumerGroup: 'other', clientId: 'x', jstackEnable: 'false' },
    }).answer;
    expect(unknown).toMatchObject({
      code: ResponseCode.SYSTEM_ERROR,
      remark: 'The Consumer Group <other> not exist in this consumer',
    });
  });

  it('CONSUME_MESSAGE_DIRECTLY hands the stored record to core and answers ConsumeMessageDirectlyResult; SYSTEM_ERROR for a group this client does not run', async () => {
    const seen: Array<[string, string, string]> = [];
    const { peer } = await setup({
      resetOffsets: async () => undefined,
      runningInfo: () => undefined,
      consumeDirectly: async (group, record, brokerName) => {
        seen.push([group, record.body.toString(), brokerName]);
        return group === 'g'
          ? { order: false, result: 'CR_THROW_EXCEPTION', remark: 'Error: boom', spentTimeMs: 7 }
          : undefined;
      },
    });
    const body = encodeMessageRecord({
      topic: 'T',
      queueId: 0,
      queueOffset: 3,
      commitLogOffset: 100,
      body: Buffer.from('hi'),
      bornTimestamp: 1,
      bornHost: '10.0.0.2:1',
      storeTimestamp: 2,
      storeHost: '127.0.0.1:10911',
    });
    const extFields = {
      consumerGroup: 'g',
      clientId: '10.0.0.1@app',
      msgId: '7F00000100002A9F0000000000000064',
      brokerName: 'broker-a',
    };
    const answer = await peer.send(RequestCode.CONSUME_MESSAGE_DIRECTLY, { extFields, body }).answer;
    expect(answer.code).toBe(ResponseCode.SUCCESS);
    expect(answer.body.toString()).toBe(
      '{"autoCommit":true,"consumeResult":"CR_THROW_EXCEPTION","order":false,"remark":"Error: boom","spentTimeMills":7}',
    );
    expect(seen).toEqual([['g', 'hi', 'broker-a']]);
    const unknown = await peer.send(RequestCode.CONSUME_MESSAGE_DIRECTLY, {
      extFields: { ...extFields, consumerGroup: 'other' },
      body,
    }).answer;
    expect(unknown).toMatchObject({
      code: ResponseCode.SYSTEM_ERROR,
      remark: 'The Consumer Group <other> not exist in this consumer',
    });
  });

  it('CHECK_TRANSACTION_STATE asks core about the half message and answers END_TRANSACTION (fromTransactionCheck) to that broker; nothing when the group is not ours', async () => {
    const ends: Record<string, unknown>[] = [];
    const asked: string[] = [];
    const { peer } = await setup({
      resetOffsets: async () => undefined,
      runningInfo: () => undefined,
      consumeDirectly: async () => undefined,
      checkTransaction: async (group, record) => {
        asked.push(`${group}:${record.body.toString()}`);
        return group === 'pg' ? 'COMMIT_MESSAGE' : undefined;
      },
    });
    cluster.onBroker = (_name, request, from) => {
      if (request.code === RequestCode.END_TRANSACTION) ends.push({ ...request.extFields });
      else from.reply(request);
    };
    const half = (group: string) =>
      encodeMessageRecord({
        topic: 'T',
        queueId: 0,
        queueOffset: 3,
        commitLogOffset: 100,
        body: Buffer.from('h'),
        properties: { PGROUP: group, UNIQ_KEY: 'U1', TRAN_MSG: 'true' },
        bornTimestamp: 1,
        bornHost: '10.0.0.2:1',
        storeTimestamp: 2,
        storeHost: '127.0.0.1:10911',
      });
    const extFields = {
      topic: 'RMQ_SYS_TRANS_HALF_TOPIC',
      tranStateTableOffset: '9',
      commitLogOffset: '100',
      transactionId: 'U1',
      bname: 'broker-a',
    };
    peer.send(RequestCode.CHECK_TRANSACTION_STATE, { oneway: true, extFields, body: half('other') });
    peer.send(RequestCode.CHECK_TRANSACTION_STATE, { oneway: true, extFields, body: half('pg') });
    await waitFor(() => ends.length === 1 && asked.length === 2);
    expect(asked).toEqual(['other:h', 'pg:h']);
    expect(ends[0]).toMatchObject({
      producerGroup: 'pg',
      tranStateTableOffset: '9',
      commitLogOffset: '100',
      commitOrRollback: '8',
      fromTransactionCheck: 'true',
      msgId: 'U1',
      bname: 'broker-a',
    });
  });

  it('anything else is REQUEST_CODE_NOT_SUPPORTED, and a producer-only client ignores offset resets', async () => {
    const { peer } = await setup(undefined);
    expect(
      (await peer.send(RequestCode.GET_CONSUMER_LIST_BY_GROUP, { extFields: { consumerGroup: 'g' } }).answer).code,
    ).toBe(ResponseCode.REQUEST_CODE_NOT_SUPPORTED);
    const answer = await peer.send(RequestCode.RESET_CONSUMER_CLIENT_OFFSET, {
      extFields: { group: 'g', topic: 'T', timestamp: '5' },
    }).answer;
    expect(answer.code).toBe(ResponseCode.SUCCESS);
  });
});
