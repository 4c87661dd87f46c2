import { ProtocolError } from '@mqkit/core';
import { describe, expect, it } from 'vitest';
import { FASTJSON_MAX_DEPTH, fastJsonEntries, parseFastJson, type FastJsonMap } from './fastjson.parser';

describe('fastjson parser', () => {
  it('parses standard JSON like JSON.parse', () => {
    const text = '{"a":[1,-2.5,3e2,true,false,null],"b":{"c":"d\\n\\u00e9\\"\\\\\\/"},"e":""}';
    expect(parseFastJson(text)).toEqual(JSON.parse(text));
  });

  it('reads unquoted numeric map keys, as plain fastjson writes brokerAddrs', () => {
    const route =
      '{"brokerDatas":[{"brokerAddrs":{0:"127.0.0.1:10911",1:"127.0.0.1:10921"},"brokerName":"broker-a","cluster":"c"}]}';
    const parsed = parseFastJson(route) as { brokerDatas: Array<{ brokerAddrs: Record<string, string> }> };
    expect(parsed.brokerDatas[0]!.brokerAddrs).toEqual({ 0: '127.0.0.1:10911', 1: '127.0.0.1:10921' });
  });

  it('reads object-typed keys (ResetOffsetBody.offsetTable) into a Map', () => {
    const body =
      '{"offsetTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:5,{"brokerName":"broker-a","queueId":1,"topic":"T"}:12}}';
    const parsed = parseFastJson(body) as { offsetTable: FastJsonMap };
    expect(parsed.offsetTable).toBeInstanceOf(Map);
    expect(fastJsonEntries(parsed.offsetTable)).toEqual([
      [{ brokerName: 'broker-a', queueId: 0, topic: 'T' }, 5],
      [{ brokerName: 'broker-a', queueId: 1, topic: 'T' }, 12],
    ]);
  });

  it('gives entries of plain objects too, and none of non-objects', () => {
    expect(fastJsonEntries(parseFastJson('{"offsetTable":{}}'))).toEqual([['offsetTable', {}]]);
    expect(fastJsonEntries(parseFastJson('[1]'))).toEqual([]);
  });

  it('keeps longs beyond 2^53 exact as bigint', () => {
    expect(parseFastJson('{"o":9223372036854775807,"s":9007199254740991}')).toEqual({
      o: 9223372036854775807n,
      s: Number.MAX_SAFE_INTEGER,
    });
  });

  it('accepts bare-name keys and single-quoted strings', () => {
    expect(parseFastJson("{name:'x',$a_1:2}")).toEqual({ name: 'x', $a_1: 2 });
  });

  it('keeps __proto__ as data', () => {
    const o = parseFastJson('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(o)).toBeNull();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(o, '__proto__')?.value).toEqual({ polluted: true });
  });

  it('refuses nesting deeper than the limit instead of overflowing the stack', () => {
    const deep = '['.repeat(FASTJSON_MAX_DEPTH + 2) + ']'.repeat(FASTJSON_MAX_DEPTH + 2);
    expect(() => parseFastJson(deep)).toThrow(ProtocolError);
    expect(() => parseFastJson('['.repeat(100000))).toThrow(ProtocolError);
    const ok = '['.repeat(FASTJSON_MAX_DEPTH) + ']'.repeat(FASTJSON_MAX_DEPTH);
    expect(() => parseFastJson(ok)).not.toThrow();
  });

  it.each(['', '{', '{"a"}', '{"a":1,}', '[1 2]', '"abc', '"\\x41"', '"\\u12"', 'tru', '{"a":1} x', '01', '{:1}'])(
    'rejects %j with a ProtocolError',
    (text) => {
      expect(() => parseFastJson(text)).toThrow(ProtocolError);
    },
  );
});
