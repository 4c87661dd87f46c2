import { ProtocolError } from '@mqkit/core';
import { describe, expect, it } from 'vitest';
import { UnsafeLongError } from '../errors/unsafe-long.error';
import { remotingCommand } from '../protocol/remoting-command';
import {
  parseConsumerRunningInfoRequest,
  parseNotifyConsumerIdsChanged,
  parseResetOffsetRequest,
} from './broker-callbacks.codec';

const RESET_BODY =
  '{"offsetTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:5,{"brokerName":"broker-a","queueId":1,"topic":"T"}:12}}';

describe('broker callback codecs', () => {
  it('reads the group of NOTIFY_CONSUMER_IDS_CHANGED', () => {
    expect(
      parseNotifyConsumerIdsChanged(
        remotingCommand({ code: 40, opaque: 1, flag: 2, extFields: { consumerGroup: 'g' } }),
      ),
    ).toEqual({ group: 'g' });
    expect(() => parseNotifyConsumerIdsChanged(remotingCommand({ code: 40, opaque: 1 }))).toThrow(ProtocolError);
  });

  it('reads RESET_CONSUMER_CLIENT_OFFSET with MessageQueue object keys', () => {
    const request = remotingCommand({
      code: 220,
      opaque: 1,
      flag: 2,
      extFields: { group: 'g', topic: 'T', timestamp: '1700000000000', isForce: 'true' },
      body: Buffer.from(RESET_BODY),
    });
    expect(parseResetOffsetRequest(request)).toEqual({
      group: 'g',
      topic: 'T',
      timestamp: 1700000000000,
      isForce: true,
      offsets: [
        { mq: { topic: 'T', brokerName: 'broker-a', queueId: 0 }, offset: 5 },
        { mq: { topic: 'T', brokerName: 'broker-a', queueId: 1 }, offset: 12 },
      ],
    });
  });

  it('refuses an offset beyond 2^53 and a malformed table with typed errors', () => {
    const big = RESET_BODY.replace(':12}', ':9007199254740993}');
    const fields = { group: 'g', topic: 'T', timestamp: '1', isForce: 'false' };
    expect(() =>
      parseResetOffsetRequest(remotingCommand({ code: 220, opaque: 1, extFields: fields, body: Buffer.from(big) })),
    ).toThrow(UnsafeLongError);
    expect(() =>
      parseResetOffsetRequest(
        remotingCommand({ code: 220, opaque: 1, extFields: fields, body: Buffer.from('{"offsetTable":{"x":1}}') }),
      ),
    ).toThrow(ProtocolError);
    expect(parseResetOffsetRequest(remotingCommand({ code: 220, opaque: 1, extFields: fields })).offsets).toEqual([]);
  });

  it('reads GET_CONSUMER_RUNNING_INFO', () => {
    const request = remotingCommand({
      code: 307,
      opaque: 1,
      extFields: { consumerGroup: 'g', clientId: 'c', jstackEnable: 'false' },
    });
    expect(parseConsumerRunningInfoRequest(request)).toEqual({ group: 'g', clientId: 'c', jstackEnable: false });
  });
});
