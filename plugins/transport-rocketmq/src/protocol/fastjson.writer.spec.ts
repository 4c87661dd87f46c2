import { describe, expect, it } from 'vitest';
import { fastJsonEntries, parseFastJson } from './fastjson.parser';
import { stringifyFastJson, type FastJsonWritable } from './fastjson.writer';

describe('fastjson writer', () => {
  it('writes ResetOffsetBody byte for byte as RocketMQ 5.3.3 does (object keys, a long beyond 2^53)', () => {
    const offsetTable = new Map<FastJsonWritable, FastJsonWritable>([
      [{ brokerName: 'broker-a', queueId: 0, topic: 'T' }, 5],
      [{ brokerName: 'broker-a', queueId: 1, topic: 'T' }, 9007199254740993n],
    ]);
    expect(stringifyFastJson({ offsetTable })).toBe(
      '{"offsetTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:5,{"brokerName":"broker-a","queueId":1,"topic":"T"}:9007199254740993}}',
    );
  });

  it('writes standard JSON for plain values, leaving out undefined fields', () => {
    const value = { a: [1, 'x', true, null], b: { c: 'd"e' }, skip: undefined };
    expect(stringifyFastJson(value)).toBe(JSON.stringify(value));
  });

  it('is read back by the fastjson parser', () => {
    const table = new Map([[{ brokerName: 'b', queueId: 3, topic: 't' }, { cachedMsgCount: 2 }]]);
    const parsed = parseFastJson(stringifyFastJson({ mqTable: table })) as {
      mqTable: Parameters<typeof fastJsonEntries>[0];
    };
    expect(fastJsonEntries(parsed.mqTable)).toEqual([
      [{ brokerName: 'b', queueId: 3, topic: 't' }, { cachedMsgCount: 2 }],
    ]);
  });
});
