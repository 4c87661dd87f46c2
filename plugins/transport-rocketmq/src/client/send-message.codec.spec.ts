import { MessageConst, type OutgoingRecord } from '@mqkit/core';
import { describe, expect, it } from 'vitest';
import { decodeBatchBody } from '../protocol/batch-body.codec';
import { decodeProperties } from '../protocol/properties.codec';
import { remotingCommand } from '../protocol/remoting-command';
import { parseSendResponse, sendBatchRequest, sendMessageRequest } from './send-message.codec';

const mq = { topic: 'T', brokerName: 'broker-a', queueId: 3 };
const record = (over: Partial<OutgoingRecord> = {}): OutgoingRecord => ({
  topic: 'T',
  body: Buffer.from('hello'),
  flag: 7,
  properties: { [MessageConst.WAIT]: 'true', [MessageConst.TAGS]: 'A', [MessageConst.UNIQ_KEY]: 'U1' },
  sysFlag: 0,
  bornTimestamp: 1_700_000_000_123,
  ...over,
});

describe('send codec', () => {
  it('writes SendMessageRequestHeaderV2 with its one-letter names', () => {
    const request = sendMessageRequest(mq, record(), 'pg');
    expect(request.code).toBe(310);
    expect(request.body!.toString()).toBe('hello');
    const { i, ...rest } = request.extFields as Record<string, unknown>;
    expect(rest).toEqual({
      a: 'pg',
      b: 'T',
      c: 'TBW102',
      d: 4,
      e: 3,
      f: 0,
      g: '1700000000123',
      h: 7,
      j: 0,
      k: false,
      l: undefined,
      m: false,
      n: 'broker-a',
    });
    expect(decodeProperties(i as string)).toEqual({ WAIT: 'true', TAGS: 'A', UNIQ_KEY: 'U1' });
  });

  it('moves RECONSUME_TIME and MAX_RECONSUME_TIMES of a %RETRY% message into the header, as the Java producer does', () => {
    const retry = record({
      topic: '%RETRY%g',
      properties: {
        [MessageConst.RECONSUME_TIME]: '3',
        [MessageConst.MAX_RECONSUME_TIMES]: '16',
        [MessageConst.RETRY_TOPIC]: 'T',
      },
    });
    const fields = sendMessageRequest({ ...mq, topic: '%RETRY%g' }, retry, 'pg').extFields as Record<string, unknown>;
    expect(fields).toMatchObject({ j: 3, l: 16 });
    expect(decodeProperties(fields.i as string)).toEqual({ RETRY_TOPIC: 'T' });
  });

  it('encodes a batch: each record with its own properties, the header with batch=true, sysFlag 0 and only WAIT', () => {
    const records = [
      record(),
      record({ body: Buffer.from('second'), properties: { WAIT: 'true', UNIQ_KEY: 'U2', KEYS: 'k' } }),
    ];
    const request = sendBatchRequest(mq, records, 'pg');
    expect(request.code).toBe(320);
    expect(request.extFields).toMatchObject({ m: true, f: 0, i: 'WAIT\u0001true\u0002' });
    expect(decodeBatchBody(request.body!).map((e) => [e.body.toString(), e.properties.UNIQ_KEY, e.flag])).toEqual([
      ['hello', 'U1', 7],
      ['second', 'U2', 7],
    ]);
  });

  it('reads 0/10/11/12 as stored results with the UNIQ_KEYs as msgId; anything else is a BrokerError', () => {
    const answer = (code: number) =>
      remotingCommand({
        code,
        opaque: 1,
        flag: 1,
        remark: code > 12 ? 'no' : undefined,
        extFields: { msgId: '7F00000100002A9F0000000000000042', queueId: '3', queueOffset: '41' },
      });
    expect(parseSendResponse(answer(0), mq, [record()])).toEqual({
      status: 'SEND_OK',
      msgId: 'U1',
      offsetMsgId: '7F00000100002A9F0000000000000042',
      messageQueue: mq,
      queueOffset: 41,
    });
    expect(parseSendResponse(answer(10), mq, [record()]).status).toBe('FLUSH_DISK_TIMEOUT');
    expect(parseSendResponse(answer(11), mq, [record()]).status).toBe('SLAVE_NOT_AVAILABLE');
    expect(parseSendResponse(answer(12), mq, [record()]).status).toBe('FLUSH_SLAVE_TIMEOUT');
    expect(parseSendResponse(answer(0), mq, [record(), record({ properties: { UNIQ_KEY: 'U2' } })]).msgId).toBe(
      'U1,U2',
    );
    for (const [code, retriable] of [
      [17, true],
      [2, true],
      [14, true],
      [13, false],
      [29, false],
    ] as const) {
      expect(() => parseSendResponse(answer(code), mq, [record()])).toThrowError(
        expect.objectContaining({ name: 'BrokerError', responseCode: code, retriable, brokerName: 'broker-a' }),
      );
    }
  });

  it("reads a 4.x broker's and a proxy's ACL refusal (SYSTEM_ERROR) as no-permission, not retried", () => {
    const refusal = remotingCommand({
      code: 1,
      opaque: 1,
      flag: 1,
      remark: 'org.apache.rocketmq.acl.common.AclException: Check signature failed for accessKey=ak, ...',
    });
    expect(() => parseSendResponse(refusal, mq, [record()])).toThrowError(
      expect.objectContaining({ responseCode: 1, kind: 'no-permission', retriable: false }),
    );
    const proxy = remotingCommand({ code: 1, opaque: 1, flag: 1, remark: 'check signature failed.' });
    expect(() => parseSendResponse(proxy, mq, [record()])).toThrowError(
      expect.objectContaining({ kind: 'no-permission', retriable: false }),
    );
    const busy = remotingCommand({ code: 1, opaque: 1, flag: 1, remark: 'store getMessage return null' });
    expect(() => parseSendResponse(busy, mq, [record()])).toThrowError(
      expect.objectContaining({ responseCode: 1, kind: 'other', retriable: true }),
    );
  });

  it("names the topic attribute a proxy's message type check wants", () => {
    const refused = remotingCommand({
      code: 13,
      opaque: 1,
      flag: 1,
      remark: 'TopicMessageType validate failed, the expected type is NORMAL, but actual type is TRANSACTION',
    });
    expect(() => parseSendResponse(refused, mq, [record()])).toThrowError(
      /broker setting: the topic's message.type is NORMAL and this message is TRANSACTION: send it to a topic created with message.type=TRANSACTION/,
    );
  });
});
