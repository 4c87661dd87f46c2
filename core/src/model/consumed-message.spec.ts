import { describe, expect, it } from 'vitest';
import { jsonCodec } from '../definition/json.codec';
import type { MessageRecord } from './message';
import { ConsumedMessage } from './consumed-message';

const record = (over: Partial<MessageRecord>): MessageRecord =>
  ({
    topic: 'T',
    properties: {},
    body: Buffer.from('{"a":1}'),
    reconsumeTimes: 0,
    offsetMsgId: 'OFF',
    ...over,
  }) as MessageRecord;
const mq = { topic: 'T', brokerName: 'b', queueId: 0 };

describe('ConsumedMessage', () => {
  it('decodes the payload once, on first access; a decode error surfaces there', () => {
    let calls = 0;
    const codec = {
      name: 'counting',
      decode: (b: Buffer) => {
        calls++;
        return JSON.parse(b.toString());
      },
      encode: jsonCodec.encode,
    };
    const m = new ConsumedMessage(record({}), mq, codec, 0);
    expect(calls).toBe(0);
    expect(m.payload).toEqual({ a: 1 });
    expect(m.payload).toEqual({ a: 1 });
    expect(calls).toBe(1);
    const bad = new ConsumedMessage(record({ body: Buffer.from('{not json') }), mq, jsonCodec, 0);
    expect(() => bad.payload).toThrow(SyntaxError);
  });

  it('msgId is UNIQ_KEY (else offsetMsgId); a retried message shows its original topic', () => {
    const m = new ConsumedMessage(
      record({
        topic: '%RETRY%g',
        properties: { UNIQ_KEY: 'U1', RETRY_TOPIC: 'orders', TAGS: 'paid', KEYS: 'k1 k2' },
        reconsumeTimes: 2,
      }),
      mq,
      jsonCodec,
      0,
    );
    expect(m.msgId).toBe('U1');
    expect(m.topic).toBe('orders');
    expect(m.tags).toBe('paid');
    expect(m.keys).toEqual(['k1', 'k2']);
    m.localReconsumeTimes++;
    expect(m.reconsumeTimes).toBe(3);
    expect(new ConsumedMessage(record({}), mq, jsonCodec, 0).msgId).toBe('OFF');
  });
});
