import type { MessageRecord } from '@mqkit/core';
import { describe, expect, it } from 'vitest';
import { resetOffsetRequest, parseResetOffsetResponse } from './reset-offset.codec';
import { remotingCommand } from '../protocol/remoting-command';
import { sendBackRequest } from './send-back.codec';

const message = (properties: Record<string, string>, topic = 'T'): MessageRecord =>
  ({
    topic,
    brokerName: 'broker-a',
    commitLogOffset: 9_000_000_000_123,
    offsetMsgId: 'OFFSETID',
    properties,
    reconsumeTimes: 0,
  }) as unknown as MessageRecord;

describe('send-back and reset codecs', () => {
  it('CONSUMER_SEND_MSG_BACK carries the commit log offset, `group`, the UNIQ_KEY and the real topic', () => {
    expect(
      sendBackRequest({ group: 'g', message: message({ UNIQ_KEY: 'U' }), delayLevel: 0, maxReconsumeTimes: 16 }),
    ).toEqual({
      code: 36,
      extFields: {
        offset: '9000000000123',
        group: 'g',
        delayLevel: 0,
        originMsgId: 'U',
        originTopic: 'T',
        unitMode: false,
        maxReconsumeTimes: 16,
        bname: 'broker-a',
      },
    });
    // A message already retried: pulled from %RETRY%g, its real topic in RETRY_TOPIC; no UNIQ_KEY: the offset msg id.
    expect(
      sendBackRequest({
        group: 'g',
        message: message({ RETRY_TOPIC: 'T' }, '%RETRY%g'),
        delayLevel: -1,
        maxReconsumeTimes: 2,
      }).extFields,
    ).toMatchObject({
      originMsgId: 'OFFSETID',
      originTopic: 'T',
      delayLevel: -1,
    });
  });

  it('INVOKE_BROKER_TO_RESET_OFFSET is forced and for every queue; its answer lists the new offsets', () => {
    expect(resetOffsetRequest('g', 'T', 1_700_000_000_000)).toEqual({
      code: 222,
      extFields: { topic: 'T', group: 'g', timestamp: '1700000000000', isForce: true },
    });
    const body = Buffer.from(
      '{"offsetTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:5,{"brokerName":"broker-a","queueId":1,"topic":"T"}:0}}',
    );
    expect(
      parseResetOffsetResponse(remotingCommand({ code: 0, opaque: 1, flag: 1, body }), 'g', 'T', 'broker-a'),
    ).toEqual([
      { mq: { topic: 'T', brokerName: 'broker-a', queueId: 0 }, offset: 5 },
      { mq: { topic: 'T', brokerName: 'broker-a', queueId: 1 }, offset: 0 },
    ]);
    expect(() =>
      parseResetOffsetResponse(remotingCommand({ code: 206, opaque: 1, flag: 1 }), 'g', 'T', 'broker-a'),
    ).toThrowError(expect.objectContaining({ responseCode: 206 }));
  });
});
