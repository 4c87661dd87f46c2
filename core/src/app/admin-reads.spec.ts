import { describe, expect, it } from 'vitest';
import { BrokerError } from '../errors/broker.error';
import { MessageNotFoundError } from '../errors/message-not-found.error';
import type { MessageRecord } from '../model/message';
import type { ClusterAdmin, MessageQuery } from '../spi/cluster-admin.role';
import { AdminReads } from './admin-reads';

const mq = (topic: string, queueId: number, brokerName = 'broker-a') => ({ topic, brokerName, queueId });

function record(fields: Partial<MessageRecord> & { topic: string; properties: Record<string, string> }): MessageRecord {
  return {
    brokerName: 'broker-a',
    queueId: 0,
    queueOffset: 0,
    commitLogOffset: 0,
    flag: 0,
    sysFlag: 0,
    body: Buffer.from('{"x":1}'),
    bornTimestamp: 1,
    bornHost: '127.0.0.1:1',
    storeTimestamp: 10,
    storeHost: '127.0.0.1:10911',
    reconsumeTimes: 0,
    preparedTransactionOffset: 0,
    offsetMsgId: 'OFF',
    bodyCRC: 0,
    storeSize: 100,
    ...fields,
  };
}

/** A ClusterAdmin answering from fixed tables; unset methods fail the test if called. */
function role(parts: Partial<ClusterAdmin>): (neededBy: string) => ClusterAdmin {
  const fail = (name: string) => () => Promise.reject(new Error(`unexpected ${name}`));
  const admin: ClusterAdmin = {
    consumeStats: fail('consumeStats'),
    topicStats: fail('topicStats'),
    consumerConnections: fail('consumerConnections'),
    ownedQueues: fail('ownedQueues'),
    queryMessages: fail('queryMessages'),
    viewMessage: fail('viewMessage'),
    createSubscriptionGroup: fail('createSubscriptionGroup'),
    topics: fail('topics'),
    ...parts,
  };
  return () => admin;
}

const connections = (...clientIds: string[]) => ({
  connections: clientIds.map((clientId) => ({
    clientId,
    clientAddr: '127.0.0.1:1',
    language: 'NODE_JS',
    version: 479,
  })),
  consumeType: 'CONSUME_PASSIVELY' as const,
  messageModel: 'CLUSTERING' as const,
  consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET' as const,
  subscriptions: [],
});

describe('AdminReads', () => {
  it('consumerProgress sorts rows, leaves the retry topic out, computes lag and names owners; a member that cannot answer owns nothing', async () => {
    const reads = new AdminReads(
      role({
        consumeStats: async () => [
          { mq: mq('T', 1), brokerOffset: 9, consumerOffset: 4, lastTimestamp: 5 },
          { mq: mq('%RETRY%g', 0), brokerOffset: 1, consumerOffset: 1, lastTimestamp: 1 },
          { mq: mq('T', 0), brokerOffset: 3, consumerOffset: 3, lastTimestamp: 2 },
          { mq: mq('T', 0, 'broker-b'), brokerOffset: 0, consumerOffset: 0, lastTimestamp: 0 },
        ],
        consumerConnections: async () => connections('c2', 'c1', 'gone'),
        ownedQueues: async (_g, clientId) => {
          if (clientId === 'gone') throw new BrokerError('The Consumer <g> <gone> not online', { responseCode: 1 });
          return clientId === 'c1' ? [mq('T', 0), mq('%RETRY%g', 0)] : [mq('T', 1)];
        },
      }),
      undefined,
    );
    expect(await reads.consumerProgress('g')).toEqual([
      {
        topic: 'T',
        brokerName: 'broker-a',
        queueId: 0,
        brokerOffset: 3,
        consumerOffset: 3,
        lag: 0,
        lastTimestamp: 2,
        clientId: 'c1',
      },
      {
        topic: 'T',
        brokerName: 'broker-a',
        queueId: 1,
        brokerOffset: 9,
        consumerOffset: 4,
        lag: 5,
        lastTimestamp: 5,
        clientId: 'c2',
      },
      { topic: 'T', brokerName: 'broker-b', queueId: 0, brokerOffset: 0, consumerOffset: 0, lag: 0, lastTimestamp: 0 },
    ]);
  });

  it('a programming error while asking a member is not swallowed', async () => {
    const reads = new AdminReads(
      role({
        consumeStats: async () => [{ mq: mq('T', 0), brokerOffset: 1, consumerOffset: 0, lastTimestamp: 0 }],
        consumerConnections: async () => connections('c1'),
        ownedQueues: async () => Promise.reject(new TypeError('bug')),
      }),
      undefined,
    );
    await expect(reads.consumerProgress('g')).rejects.toBeInstanceOf(TypeError);
  });

  it('queryMessagesByKey keeps only hits of the topic with the key among their KEYS (index hash duplicates), the newest maxNum, oldest first', async () => {
    let asked: MessageQuery | undefined;
    const hits = [
      record({ topic: 'T', properties: { KEYS: 'a k' }, storeTimestamp: 30, offsetMsgId: 'm3' }),
      record({ topic: 'T', properties: { KEYS: 'kk' }, storeTimestamp: 20, offsetMsgId: 'dup' }),
      record({ topic: 'T2', properties: { KEYS: 'k' }, storeTimestamp: 20, offsetMsgId: 'other-topic' }),
      record({ topic: 'T', properties: { KEYS: 'k' }, storeTimestamp: 10, offsetMsgId: 'm1', brokerName: 'broker-b' }),
      record({ topic: 'T', properties: { KEYS: 'k' }, storeTimestamp: 20, offsetMsgId: 'm2' }),
    ];
    const reads = new AdminReads(
      role({
        queryMessages: async (q) => {
          asked = q;
          return hits;
        },
      }),
      undefined,
    );
    expect((await reads.queryMessagesByKey('T', 'k', { begin: 1, end: 99 })).map((m) => m.offsetMsgId)).toEqual([
      'm1',
      'm2',
      'm3',
    ]);
    expect(asked).toEqual({ topic: 'T', key: 'k', maxNum: 64, beginTimestamp: 1, endTimestamp: 99, uniqueKey: false });
    expect(
      (await reads.queryMessagesByKey('T', 'k', { begin: 1, end: 99, maxNum: 2 })).map((m) => m.offsetMsgId),
    ).toEqual(['m2', 'm3']);
  });

  it('viewMessage falls back to the UNIQ_KEY lookup when the offset lookup fails or finds nothing, given a topic', async () => {
    const id = '7F00000130391B6D358600A1B2C30001';
    const stored = record({ topic: 'ns%T', properties: { UNIQ_KEY: id }, offsetMsgId: 'OFF1' });
    let asked: MessageQuery | undefined;
    const broken = new BrokerError('connect failed', { responseCode: 14 });
    const reads = new AdminReads(
      role({
        viewMessage: async () => Promise.reject(broken),
        queryMessages: async (q) => {
          asked = q;
          return [record({ topic: 'ns%T', properties: { UNIQ_KEY: 'other' } }), stored];
        },
      }),
      'ns',
    );
    const found = await reads.viewMessage(id, { topic: 'T' });
    expect([found.offsetMsgId, found.topic, found.payload]).toEqual(['OFF1', 'T', { x: 1 }]);
    expect(asked).toMatchObject({
      topic: 'ns%T',
      key: id,
      maxNum: 32,
      uniqueKey: true,
      endTimestamp: Number.MAX_SAFE_INTEGER,
    });
    expect(Date.now() - asked!.beginTimestamp).toBeGreaterThanOrEqual(3 * 24 * 3600 * 1000);
    // Without a topic the offset lookup's failure is the answer.
    await expect(reads.viewMessage(id)).rejects.toBe(broken);
    const none = new AdminReads(role({ viewMessage: async () => undefined, queryMessages: async () => [] }), undefined);
    const error = await none.viewMessage(id, { topic: 'T' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MessageNotFoundError);
    expect(error).toMatchObject({ code: 'MESSAGE_NOT_FOUND', msgId: id, topic: 'T' });
    await expect(none.viewMessage(id)).rejects.toMatchObject({ name: 'MessageNotFoundError', topic: undefined });
  });

  it("topics: sorted, unique, the namespace's own (plain) and the system topics; { system: false } drops those", async () => {
    const listing = [
      { topic: 'ns%b', system: false },
      { topic: 'TBW102', system: true },
      { topic: 'other%x', system: false },
      { topic: '%RETRY%ns%g', system: false },
      { topic: 'plain', system: false },
      { topic: 'ns%a', system: false },
    ];
    const scoped = new AdminReads(role({ topics: async () => listing }), 'ns');
    expect(await scoped.topics()).toEqual(['%RETRY%g', 'TBW102', 'a', 'b']);
    expect(await scoped.topics({ system: false })).toEqual(['%RETRY%g', 'a', 'b']);
    const all = new AdminReads(role({ topics: async () => listing }), undefined);
    expect(await all.topics({ system: false })).toEqual(['%RETRY%ns%g', 'ns%a', 'ns%b', 'other%x', 'plain']);
  });
});
