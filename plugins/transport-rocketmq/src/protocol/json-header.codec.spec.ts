import { ProtocolError } from '@mqkit/core';
import { describe, expect, it } from 'vitest';
import { decodeJsonHeader, encodeJsonHeader } from './json-header.codec';

describe('JSON header', () => {
  it('reads a header as a 5.x broker writes it (fastjson, nulls left out)', () => {
    const text =
      '{"code":0,"extFields":{"queueId":"1","msgId":"7F00000100002A9F0000000000000000","queueOffset":"0","MSG_REGION":"DefaultRegion","TRACE_ON":"true"},' +
      '"flag":1,"language":"JAVA","opaque":42,"serializeTypeCurrentRPC":"JSON","version":479}';
    expect(decodeJsonHeader(Buffer.from(text))).toEqual({
      code: 0,
      language: 'JAVA',
      version: 479,
      opaque: 42,
      flag: 1,
      remark: undefined,
      extFields: {
        queueId: '1',
        msgId: '7F00000100002A9F0000000000000000',
        queueOffset: '0',
        MSG_REGION: 'DefaultRegion',
        TRACE_ON: 'true',
      },
    });
  });

  it('turns number and boolean ext values into strings, as fastjson does', () => {
    const h = decodeJsonHeader(
      Buffer.from('{"code":11,"opaque":1,"extFields":{"queueId":3,"force":true,"gone":null}}'),
    );
    expect(h.extFields).toEqual({ queueId: '3', force: 'true' });
    expect(h.flag).toBe(0);
    expect(h.version).toBe(0);
  });

  it('writes what it reads, with serializeTypeCurrentRPC and without a missing remark', () => {
    const header = {
      code: 34,
      language: 'JAVA',
      version: 479,
      opaque: 9,
      flag: 2,
      remark: undefined,
      extFields: { a: 'b' },
    };
    const text = encodeJsonHeader(header).toString();
    expect(text).toBe(
      '{"code":34,"extFields":{"a":"b"},"flag":2,"language":"JAVA","opaque":9,"serializeTypeCurrentRPC":"JSON","version":479}',
    );
    expect(decodeJsonHeader(Buffer.from(text))).toEqual(header);
  });

  it('keeps a __proto__ ext key as data', () => {
    const h = decodeJsonHeader(Buffer.from('{"code":1,"opaque":1,"extFields":{"__proto__":"x"}}'));
    expect(Object.keys(h.extFields)).toEqual(['__proto__']);
    expect(Object.getOwnPropertyDescriptor(h.extFields, '__proto__')?.value).toBe('x');
  });

  it.each([
    ['not JSON', '{"code":1,'],
    ['not an object', '[1,2]'],
    ['no code', '{"opaque":1}'],
    ['no opaque', '{"code":1}'],
    ['fractional code', '{"code":1.5,"opaque":1}'],
    ['opaque beyond int32', '{"code":1,"opaque":2147483648}'],
    ['string code', '{"code":"1","opaque":1}'],
    ['array extFields', '{"code":1,"opaque":1,"extFields":[]}'],
    ['object ext value', '{"code":1,"opaque":1,"extFields":{"a":{}}}'],
    ['numeric remark', '{"code":1,"opaque":1,"remark":5}'],
  ])('rejects %s with a ProtocolError', (_name, text) => {
    expect(() => decodeJsonHeader(Buffer.from(text))).toThrow(ProtocolError);
  });
});
