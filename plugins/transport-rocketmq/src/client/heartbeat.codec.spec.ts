import { parseSubscription } from '@mqkit/core';
import { describe, expect, it } from 'vitest';
import { remotingCommand } from '../protocol/remoting-command';
import { heartbeatRequest, parseHeartbeatResponse, unregisterRequest } from './heartbeat.codec';

describe('heartbeat codec', () => {
  it('writes HeartbeatData exactly as RocketMQ 5.3.3 serializes it', () => {
    const request = heartbeatRequest({
      clientId: '10.0.0.5@123#456',
      producerGroups: ['pg'],
      consumers: [
        {
          group: 'g',
          messageModel: 'CLUSTERING',
          consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
          subscriptions: [parseSubscription('T', 'TagA || TagB', 1700000000000)],
        },
      ],
    });
    expect(request.code).toBe(34);
    expect(request.extFields).toBeUndefined();
    // HeartbeatData.toJson() from rocketmq-remoting 5.3.3 for the same data (FilterAPI.buildSubscriptionData).
    expect(request.body!.toString()).toBe(
      '{"clientID":"10.0.0.5@123#456","consumerDataSet":[{"consumeFromWhere":"CONSUME_FROM_LAST_OFFSET","consumeType":"CONSUME_PASSIVELY",' +
        '"groupName":"g","messageModel":"CLUSTERING","subscriptionDataSet":[{"classFilterMode":false,"codeSet":[2598919,2598920],' +
        '"expressionType":"TAG","subString":"TagA || TagB","subVersion":1700000000000,"tagsSet":["TagA","TagB"],"topic":"T"}],' +
        '"unitMode":false}],"heartbeatFingerprint":0,"producerDataSet":[{"groupName":"pg"}],"withoutSub":false}',
    );
  });

  it('subscribes to everything with "*" and empty sets', () => {
    const request = heartbeatRequest({
      clientId: 'c',
      consumers: [
        {
          group: 'g',
          messageModel: 'BROADCASTING',
          consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
          subscriptions: [parseSubscription('%RETRY%g', '*', 1)],
        },
      ],
    });
    const body = JSON.parse(request.body!.toString());
    expect(body.consumerDataSet[0].subscriptionDataSet[0]).toMatchObject({
      subString: '*',
      tagsSet: [],
      codeSet: [],
      topic: '%RETRY%g',
    });
    expect(body.producerDataSet).toEqual([]);
  });

  it('reads the broker version from the answer and fails on an error code', () => {
    expect(parseHeartbeatResponse(remotingCommand({ code: 0, opaque: 1, flag: 1, version: 479 }))).toEqual({
      brokerVersion: 479,
    });
    expect(() => parseHeartbeatResponse(remotingCommand({ code: 1, opaque: 1, flag: 1, remark: 'x' }))).toThrow(
      /heartbeat failed: code 1/,
    );
  });

  it('unregisters with clientID and the group', () => {
    expect(unregisterRequest('c', { consumerGroup: 'g' })).toEqual({
      code: 35,
      extFields: { clientID: 'c', consumerGroup: 'g', producerGroup: undefined },
    });
  });
});
