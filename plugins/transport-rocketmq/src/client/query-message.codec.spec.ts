import { describe, expect, it } from 'vitest';
import { encodeMessageRecord } from '../protocol/message-record.encoder';
import { RequestCode } from '../protocol/remoting-codes';
import { remotingCommand } from '../protocol/remoting-command';
import {
  parseQueryMessageResponse,
  parseViewMessageResponse,
  queryMessageRequest,
  viewMessageRequest,
} from './query-message.codec';

const answer = (fields: { code?: number; remark?: string; body?: Buffer; extFields?: Record<string, string> }) =>
  remotingCommand({
    code: fields.code ?? 0,
    opaque: 1,
    flag: 1,
    remark: fields.remark,
    extFields: fields.extFields,
    body: fields.body,
  });

const record = (queueOffset: number, commitLogOffset: number, keys: string) =>
  encodeMessageRecord({
    topic: 'T',
    queueId: 2,
    queueOffset,
    commitLogOffset,
    body: Buffer.from(`{"seq":${queueOffset}}`),
    properties: {
      KEYS: keys,
      UNIQ_KEY: `7F00000130391B6D3586000000000${queueOffset.toString(16).padStart(3, '0')}`,
      TAGS: 'a',
    },
    bornTimestamp: 1718000000000,
    bornHost: '127.0.0.1:50000',
    storeTimestamp: 1718000000100 + queueOffset,
    storeHost: '127.0.0.1:10911',
  });

const query = { topic: 'T', key: 'k1', maxNum: 64, beginTimestamp: 0, endTimestamp: 1718000009999, uniqueKey: false };

describe('query message codec', () => {
  it('sends QueryMessageRequestHeader with the unique-key flag beside it', () => {
    expect(queryMessageRequest(query)).toEqual({
      code: RequestCode.QUERY_MESSAGE,
      extFields: {
        topic: 'T',
        key: 'k1',
        maxNum: 64,
        beginTimestamp: '0',
        endTimestamp: '1718000009999',
        _UNIQUE_KEY_QUERY: false,
      },
    });
    expect(
      queryMessageRequest({ ...query, uniqueKey: true, endTimestamp: Number.MAX_SAFE_INTEGER }).extFields,
    ).toMatchObject({ _UNIQUE_KEY_QUERY: true, endTimestamp: '9007199254740991' });
    // For a 4.x broker with ACL the flag is sent but not signed (its PlainAccessValidator leaves it out).
    expect(queryMessageRequest(query, { flagUnsigned: true }).unsignedFields).toEqual(['_UNIQUE_KEY_QUERY']);
    expect(queryMessageRequest(query).unsignedFields).toBeUndefined();
  });

  it('decodes the hits (records back to back, as QueryMessageTransfer sends them); QUERY_NOT_FOUND is no hit', () => {
    const body = Buffer.concat([record(0, 0, 'k1 other'), record(5, 4096, 'k1')]);
    const hits = parseQueryMessageResponse(
      answer({ body, extFields: { indexLastUpdateTimestamp: '1718000009000', indexLastUpdatePhyoffset: '8192' } }),
      query,
      'broker-a',
    );
    expect(
      hits.map((m) => [m.brokerName, m.queueId, m.queueOffset, m.commitLogOffset, m.properties.KEYS, m.storeTimestamp]),
    ).toEqual([
      ['broker-a', 2, 0, 0, 'k1 other', 1718000000100],
      ['broker-a', 2, 5, 4096, 'k1', 1718000000105],
    ]);
    expect(hits[1]!.offsetMsgId).toBe('7F00000100002A9F0000000000001000');
    expect(
      parseQueryMessageResponse(
        answer({ code: 22, remark: 'can not find message, maybe time range not correct' }),
        query,
        'broker-a',
      ),
    ).toEqual([]);
    expect(() =>
      parseQueryMessageResponse(answer({ code: 16, remark: 'no permission' }), query, 'broker-a'),
    ).toThrowError(expect.objectContaining({ name: 'BrokerError', responseCode: 16 }));
    expect(() =>
      parseQueryMessageResponse(answer({ body: record(0, 0, 'k1').subarray(0, 50) }), query, 'broker-a'),
    ).toThrowError(expect.objectContaining({ name: 'MessageDecodeError' }));
  });

  it('views one record by its commit-log offset; "can not find message by the offset" is none', () => {
    expect(viewMessageRequest(4096)).toEqual({ code: RequestCode.VIEW_MESSAGE_BY_ID, extFields: { offset: '4096' } });
    const viewed = parseViewMessageResponse(answer({ body: record(5, 4096, 'k1') }), 4096, 'broker-a');
    expect([viewed?.topic, viewed?.queueOffset, viewed?.body.toString()]).toEqual(['T', 5, '{"seq":5}']);
    expect(
      parseViewMessageResponse(
        answer({ code: 1, remark: 'can not find message by the offset, 99999' }),
        99999,
        'broker-a',
      ),
    ).toBeUndefined();
    expect(() => parseViewMessageResponse(answer({ code: 1, remark: 'disk error' }), 1, 'broker-a')).toThrowError(
      expect.objectContaining({ name: 'BrokerError', responseCode: 1 }),
    );
  });
});
