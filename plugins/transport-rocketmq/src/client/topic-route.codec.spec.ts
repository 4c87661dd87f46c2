import { BrokerError, ProtocolError } from '@mqkit/core';
import { describe, expect, it } from 'vitest';
import { remotingCommand } from '../protocol/remoting-command';
import {
  brokerAddressOf,
  parseTopicRoute,
  publishQueuesOf,
  routeRequest,
  subscribeQueuesOf,
} from './topic-route.codec';

const response = (body: string, code = 0) => remotingCommand({ code, opaque: 1, flag: 1, body: Buffer.from(body) });

// What RocketMQ 5.3.3's TopicRouteData.toJson() writes without BrowserCompatible: bare numeric map keys.
const FASTJSON_ROUTE =
  '{"brokerDatas":[{"brokerAddrs":{0:"127.0.0.1:10911",1:"127.0.0.1:10921"},"brokerName":"broker-a","cluster":"DefaultCluster","enableActingMaster":false}],' +
  '"filterServerTable":{},"queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}]}';

const TWO_BROKERS = JSON.stringify({
  brokerDatas: [
    { brokerAddrs: { '0': '10.0.0.2:10911' }, brokerName: 'broker-b', cluster: 'c' },
    { brokerAddrs: { '0': '10.0.0.1:10911', '1': '10.0.0.1:10921' }, brokerName: 'broker-a', cluster: 'c' },
    { brokerAddrs: { '1': '10.0.0.3:10921' }, brokerName: 'broker-c', cluster: 'c' },
  ],
  queueDatas: [
    { brokerName: 'broker-b', perm: 6, readQueueNums: 2, writeQueueNums: 3, topicSysFlag: 0 },
    { brokerName: 'broker-a', perm: 4, readQueueNums: 2, writeQueueNums: 2, topicSysFlag: 0 },
    { brokerName: 'broker-c', perm: 6, readQueueNums: 1, writeQueueNums: 1, topicSysFlag: 0 },
  ],
});

describe('topic route codec', () => {
  it('asks for standard JSON', () => {
    expect(routeRequest('T')).toEqual({ code: 105, extFields: { topic: 'T', acceptStandardJsonOnly: 'true' } });
  });

  it('reads the fastjson form with bare numeric broker ids', () => {
    const route = parseTopicRoute(response(FASTJSON_ROUTE), 'T');
    expect(route.brokerDatas[0]!.brokerAddrs).toEqual(
      new Map([
        [0, '127.0.0.1:10911'],
        [1, '127.0.0.1:10921'],
      ]),
    );
    expect(route.queueDatas).toEqual([
      { brokerName: 'broker-a', perm: 6, readQueueNums: 4, writeQueueNums: 4, topicSysFlag: 0 },
    ]);
    expect(brokerAddressOf(route, 'broker-a')).toBe('127.0.0.1:10911');
    expect(brokerAddressOf(route, 'broker-a', 1)).toBe('127.0.0.1:10921');
    expect(route.staticTopic).toBe(false);
  });

  it('subscribes to readable queues and publishes to writable queues of brokers with a master, sorted by broker', () => {
    const route = parseTopicRoute(response(TWO_BROKERS), 'T');
    expect(subscribeQueuesOf('T', route).map((q) => `${q.brokerName}:${q.queueId}`)).toEqual([
      'broker-b:0',
      'broker-b:1',
      'broker-a:0',
      'broker-a:1',
      'broker-c:0',
    ]);
    // broker-a is read-only (perm 4); broker-c has no master (no id 0).
    expect(publishQueuesOf('T', route).map((q) => `${q.brokerName}:${q.queueId}`)).toEqual([
      'broker-b:0',
      'broker-b:1',
      'broker-b:2',
    ]);
  });

  it('publishes exactly the orderTopicConf queues when the name server sends one', () => {
    const body = JSON.stringify({ orderTopicConf: 'broker-b:2;broker-a:1', brokerDatas: [], queueDatas: [] });
    expect(
      publishQueuesOf('T', parseTopicRoute(response(body), 'T')).map((q) => `${q.brokerName}:${q.queueId}`),
    ).toEqual(['broker-b:0', 'broker-b:1', 'broker-a:0']);
  });

  it('turns TOPIC_NOT_EXIST into a retriable BrokerError with the code', () => {
    let caught: unknown;
    try {
      parseTopicRoute(response('', 17), 'T');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(BrokerError);
    expect(caught).toMatchObject({ responseCode: 17, retriable: true });
  });

  it.each([
    ['an empty body', ''],
    ['a non-object body', '[]'],
    ['a queueData without perm', '{"queueDatas":[{"brokerName":"a","readQueueNums":1,"writeQueueNums":1}]}'],
    ['a non-numeric broker id', '{"brokerDatas":[{"brokerName":"a","brokerAddrs":{"x":"h:1"}}]}'],
    ['a broken body', '{"queueDatas":['],
  ])('rejects %s with a ProtocolError', (_name, body) => {
    expect(() => parseTopicRoute(response(body), 'T')).toThrow(ProtocolError);
  });
});
