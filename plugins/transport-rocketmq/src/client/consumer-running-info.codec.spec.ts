import { parseSubscription, type ConsumerStatus } from '@mqkit/core';
import { describe, expect, it } from 'vitest';
import { fastJsonEntries, parseFastJsonBody, type FastJsonObject } from '../protocol/fastjson.parser';
import { consumerRunningInfoBody, isConsumerStatus } from './consumer-running-info.codec';

const status: ConsumerStatus = {
  group: 'g',
  clientId: '10.0.0.1@app',
  state: 'running',
  ready: true,
  unroutedTopics: [],
  paused: false,
  strategy: 'AVG',
  lag: 5,
  inFlight: 1,
  peakInFlight: 2,
  queuedTasks: 0,
  lastError: undefined,
  consumeMode: 'CONCURRENTLY',
  consumeThreadMin: 20,
  topics: [
    {
      topic: 'T',
      pullRT: 3.5,
      pullTPS: 120,
      consumeRT: 1.25,
      consumeOKTPS: 118,
      consumeFailedTPS: 2,
      consumeFailedMsgs: 40,
    },
  ],
  queues: [
    {
      mq: { topic: 'T', brokerName: 'broker-b', queueId: 0 },
      state: 'active',
      cachedCount: 3,
      cachedBytes: 3 * 1024 * 1024,
      nextOffset: 20,
      committableOffset: 17,
      committedOffset: 17,
      persistedOffset: 15,
      maxOffset: 22,
      lag: 5,
      inflight: 1,
      lastPullTimestamp: 5_000,
      lastConsumeTimestamp: 4_900,
    },
    {
      mq: { topic: 'T', brokerName: 'broker-a', queueId: 1 },
      state: 'dropped',
      cachedCount: 0,
      cachedBytes: 0,
      nextOffset: 4,
      committableOffset: 4,
      committedOffset: 4,
      persistedOffset: 4,
      maxOffset: 4,
      lag: 0,
      inflight: 0,
      lastPullTimestamp: 1_000,
      lastConsumeTimestamp: 1_000,
    },
  ],
};

describe('ConsumerRunningInfo body', () => {
  it("is fastjson with MessageQueue keys in mqTable (sorted as Java's TreeMap), subscriptions, properties and per-topic status", () => {
    const body = consumerRunningInfoBody({
      registration: {
        group: 'g',
        messageModel: 'CLUSTERING',
        consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
        subscriptions: [parseSubscription('T', 'A || B', 9), parseSubscription('%RETRY%g', '*', 9)],
      },
      status,
      nameServers: ['n1:9876', 'n2:9876'],
      startTimestamp: 1234,
      clientVersion: 'V5_3_3',
      lockedAt: (mq) => (mq.brokerName === 'broker-b' ? 999 : undefined),
    });
    const text = body.toString();
    expect(text).toContain('"mqTable":{{"brokerName":"broker-a","queueId":1,"topic":"T"}:{');
    const info = parseFastJsonBody(body) as FastJsonObject;
    expect(info.properties).toMatchObject({
      PROP_CLIENT_VERSION: 'V5_3_3',
      PROP_CONSUME_TYPE: 'CONSUME_PASSIVELY',
      PROP_CONSUMER_START_TIMESTAMP: '1234',
      PROP_NAMESERVER_ADDR: 'n1:9876;n2:9876',
      consumerGroup: 'g',
      messageModel: 'CLUSTERING',
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      allocateMessageQueueStrategy: 'AVG',
      PROP_CONSUMEORDERLY: 'false',
      PROP_THREADPOOL_CORE_SIZE: '20',
    });
    expect((info.subscriptionSet as FastJsonObject[]).map((s) => [s.topic, s.subString, s.codeSet])).toEqual([
      ['%RETRY%g', '*', []],
      ['T', 'A || B', [65, 66]],
    ]);
    const table = fastJsonEntries(info.mqTable);
    expect(table.map(([k]) => (k as FastJsonObject).brokerName)).toEqual(['broker-a', 'broker-b']);
    expect(table[1]![1]).toMatchObject({
      commitOffset: 17,
      cachedMsgCount: 3,
      cachedMsgSizeInMiB: 3,
      cachedMsgMinOffset: 17,
      cachedMsgMaxOffset: 19,
      locked: true,
      lastLockTimestamp: 999,
      droped: false,
      lastPullTimestamp: 5_000,
      lastConsumeTimestamp: 4_900,
    });
    expect(table[0]![1]).toMatchObject({ droped: true, locked: false, cachedMsgMinOffset: 0 });
    expect(Object.keys(info.statusTable as FastJsonObject)).toEqual(['%RETRY%g', 'T']);
    expect((info.statusTable as FastJsonObject).T).toEqual({
      consumeFailedMsgs: 40,
      consumeFailedTPS: 2,
      consumeOKTPS: 118,
      consumeRT: 1.25,
      pullRT: 3.5,
      pullTPS: 120,
    });
    expect((info.statusTable as FastJsonObject)['%RETRY%g']).toMatchObject({ consumeOKTPS: 0, pullTPS: 0 });
  });

  it("recognizes core's status object", () => {
    expect(isConsumerStatus(status)).toBe(true);
    expect(isConsumerStatus(undefined)).toBe(false);
    expect(isConsumerStatus({ group: 'g' })).toBe(false);
  });
});
