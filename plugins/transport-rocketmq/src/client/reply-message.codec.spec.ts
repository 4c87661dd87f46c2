import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeProperties } from '../protocol/properties.codec';
import { remotingCommand } from '../protocol/remoting-command';
import { parsePushReply, parseReplyResponse, sendReplyRequest } from './reply-message.codec';

const record = {
  topic: 'DefaultCluster_REPLY_TOPIC',
  body: Buffer.from('answer'),
  flag: 0,
  properties: { MSG_TYPE: 'reply', CORRELATION_ID: 'c-1', REPLY_TO_CLIENT: '10.0.0.1@x', TTL: '3000', UNIQ_KEY: 'U1' },
  sysFlag: 0,
  bornTimestamp: 1_764_000_000_123,
};
const request = { brokerName: 'broker-b', record, producerGroup: 'g', timeoutMs: 3000 };

describe('reply codec', () => {
  it("SEND_REPLY_MESSAGE_V2 carries the send header for queue 0 of the reply topic on the request's broker", () => {
    const out = sendReplyRequest(request);
    expect(out.code).toBe(325);
    expect(out.extFields).toMatchObject({
      a: 'g',
      b: 'DefaultCluster_REPLY_TOPIC',
      e: 0,
      f: 0,
      g: '1764000000123',
      n: 'broker-b',
    });
    expect(decodeProperties(String(out.extFields!.i))).toEqual(record.properties);
    expect(out.body).toBe(record.body);
  });

  it('reads PUSH_REPLY_MESSAGE_TO_CLIENT as ReplyMessageProcessor fills it: long timestamps, a zlib body inflated', () => {
    const fields = {
      producerGroup: 'g',
      topic: 'DefaultCluster_REPLY_TOPIC',
      defaultTopic: 'TBW102',
      defaultTopicQueueNums: '4',
      queueId: '0',
      sysFlag: String(0x301),
      bornTimestamp: '1764000000123',
      flag: '0',
      properties: 'MSG_TYPE\u0001reply\u0002CORRELATION_ID\u0001c-1\u0002PUSH_REPLY_TIME\u00011764000000200\u0002',
      reconsumeTimes: '0',
      unitMode: 'false',
      bornHost: '10.0.0.9:51000',
      storeHost: '10.0.0.5:10911',
      storeTimestamp: '1764000000200',
    };
    const reply = parsePushReply(
      remotingCommand({
        code: 326,
        opaque: 1,
        flag: 0,
        extFields: fields,
        body: deflateSync(Buffer.from('x'.repeat(5000))),
      }),
      'broker-a',
    );
    expect(reply).toMatchObject({
      topic: 'DefaultCluster_REPLY_TOPIC',
      brokerName: 'broker-a',
      queueId: 0,
      bornTimestamp: 1_764_000_000_123,
      storeTimestamp: 1_764_000_000_200,
      bornHost: '10.0.0.9:51000',
      sysFlag: 0x300,
    });
    expect(reply.body.toString()).toBe('x'.repeat(5000));
    expect(reply.properties.CORRELATION_ID).toBe('c-1');
    expect(() =>
      parsePushReply(remotingCommand({ code: 326, opaque: 1, flag: 0, extFields: {}, body: undefined }), 'b'),
    ).toThrow(/no topic/);
  });

  it("a broker's refusal is a non-retriable BrokerError with its remark", () => {
    expect(() =>
      parseReplyResponse(remotingCommand({ code: 0, opaque: 1, flag: 1, extFields: {} }), request),
    ).not.toThrow();
    expect(() =>
      parseReplyResponse(
        remotingCommand({
          code: 1,
          opaque: 1,
          flag: 1,
          extFields: {},
          remark: 'push reply message fail, channel of <x> not found.',
        }),
        request,
      ),
    ).toThrow(
      expect.objectContaining({
        responseCode: 1,
        retriable: false,
        message: expect.stringContaining('channel of <x> not found'),
      }),
    );
  });
});
