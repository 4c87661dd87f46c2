import { describe, expect, it } from 'vitest';
import { RequestCode } from '../protocol/remoting-codes';
import { remotingCommand } from '../protocol/remoting-command';
import { createSubscriptionGroupRequest, parseCreateSubscriptionGroupResponse } from './subscription-group.codec';
import { parseTopicList, topicListRequest } from './topic-list.codec';

/** Java's defaults but for the broadcast, orderly and retry settings. */
const settings = {
  groupName: 'g',
  consumeEnable: true,
  consumeFromMinEnable: true,
  consumeBroadcastEnable: false,
  consumeMessageOrderly: true,
  retryQueueNums: 1,
};
const more = {
  retryMaxTimes: 3,
  brokerId: 0,
  whichBrokerWhenConsumeSlowly: 1,
  notifyConsumerIdsChangedEnable: true,
  consumeTimeoutMinute: 15,
};

describe('subscription group codec', () => {
  it('sends SubscriptionGroupConfig as the JSON body, by its Java field names, with no header', () => {
    const request = createSubscriptionGroupRequest({ ...settings, ...more });
    expect(request.code).toBe(RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP);
    expect(request.extFields).toBeUndefined();
    expect(JSON.parse(request.body!.toString('utf8'))).toEqual({ ...settings, ...more });
  });

  it('a refusal is a BrokerError naming the code and remark', () => {
    const ok = remotingCommand({ code: 0, opaque: 1, flag: 1 });
    expect(() => parseCreateSubscriptionGroupResponse(ok, 'g', 'broker-a')).not.toThrow();
    const refused = remotingCommand({ code: 16, opaque: 1, flag: 1, remark: 'no permission' });
    expect(() => parseCreateSubscriptionGroupResponse(refused, 'g', 'broker-a')).toThrow(
      /create subscription group g failed: code 16 \(no permission\)/,
    );
  });
});

describe('topic list codec', () => {
  it('reads TopicList from a name server; "disable" is a BrokerError', () => {
    expect(topicListRequest()).toEqual({ code: RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER });
    const body = Buffer.from('{"topicList":["TBW102","orders","%RETRY%g","DefaultCluster_REPLY_TOPIC"]}');
    expect(parseTopicList(remotingCommand({ code: 0, opaque: 1, flag: 1, body }))).toEqual([
      'TBW102',
      'orders',
      '%RETRY%g',
      'DefaultCluster_REPLY_TOPIC',
    ]);
    expect(() => parseTopicList(remotingCommand({ code: 1, opaque: 1, flag: 1, remark: 'disable' }))).toThrowError(
      expect.objectContaining({ name: 'BrokerError', responseCode: 1 }),
    );
    expect(() =>
      parseTopicList(remotingCommand({ code: 0, opaque: 1, flag: 1, body: Buffer.from('{"topicList":[1]}') })),
    ).toThrowError(expect.objectContaining({ name: 'ProtocolError' }));
  });
});
