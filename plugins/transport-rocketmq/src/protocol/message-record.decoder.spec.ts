import { deflateSync } from 'node:zlib';
import { ProtocolError } from '@mqkit/core';
import { prepareCompression } from '@mqkit/core/internal';
import { describe, expect, it } from 'vitest';
import { MessageDecodeError } from '../errors/message-decode.error';
import { UnsafeLongError } from '../errors/unsafe-long.error';
import { encodeBatchBody } from './batch-body.codec';
import { decodeMessageRecord, decodeMessageRecords } from './message-record.decoder';
import { encodeMessageRecord, type MessageRecordInput } from './message-record.encoder';
import { MessageMagic, MessageSysFlag } from './remoting-codes';

/**
 * One record written field by field from the layout table (docs/remoting-protocol.md#stored-message-record),
 * independent of the encoder.
 */
function handBuiltRecord(body: Buffer, sysFlag = 0): Buffer {
  const topic = Buffer.from('TopicTest');
  const props = Buffer.from('TAGS\u0001TagA\u0002UNIQ_KEY\u0001AC1100010001\u0002');
  const parts: Buffer[] = [];
  const int = (v: number): void =>
    void parts.push(Buffer.from([(v >>> 24) & 255, (v >>> 16) & 255, (v >>> 8) & 255, v & 255]));
  const long = (v: bigint): void => {
    const b = Buffer.alloc(8);
    b.writeBigInt64BE(v);
    parts.push(b);
  };
  int(0); // totalSize, patched below
  int(MessageMagic.V1);
  int(0x12345678); // bodyCRC
  int(3); // queueId
  int(7); // flag
  long(41n); // queueOffset
  long(123456n); // commitLogOffset
  int(sysFlag);
  long(1700000000000n); // bornTimestamp
  parts.push(Buffer.from([192, 168, 1, 20]));
  int(54321);
  long(1700000000123n); // storeTimestamp
  parts.push(Buffer.from([127, 0, 0, 1]));
  int(10911);
  int(2); // reconsumeTimes
  long(0n); // preparedTransactionOffset
  int(body.length);
  parts.push(body);
  parts.push(Buffer.from([topic.length]));
  parts.push(topic);
  parts.push(Buffer.from([props.length >> 8, props.length & 255]));
  parts.push(props);
  const out = Buffer.concat(parts);
  out.writeInt32BE(out.length, 0);
  return out;
}

const base: MessageRecordInput = {
  topic: 'TopicTest',
  queueId: 3,
  queueOffset: 41,
  commitLogOffset: 123456,
  flag: 7,
  body: Buffer.from('hello'),
  properties: { TAGS: 'TagA', UNIQ_KEY: 'AC1100010001' },
  bornTimestamp: 1700000000000,
  bornHost: '192.168.1.20:54321',
  storeTimestamp: 1700000000123,
  storeHost: '127.0.0.1:10911',
  reconsumeTimes: 2,
  bodyCRC: 0x12345678,
};

/** A corruption that writes into the encoded bytes in place and hands the same buffer on. */
const inPlace =
  (write: (b: Buffer) => unknown) =>
  (b: Buffer): Buffer => {
    write(b);
    return b;
  };

describe('message record decoder', () => {
  it('reads every field of a hand-built V1 record', () => {
    const bytes = handBuiltRecord(Buffer.from('hello'));
    const [record] = decodeMessageRecords(bytes, { brokerName: 'broker-a' });
    expect(record).toEqual({
      topic: 'TopicTest',
      brokerName: 'broker-a',
      queueId: 3,
      queueOffset: 41,
      commitLogOffset: 123456,
      flag: 7,
      sysFlag: 0,
      body: Buffer.from('hello'),
      properties: { TAGS: 'TagA', UNIQ_KEY: 'AC1100010001' },
      bornTimestamp: 1700000000000,
      bornHost: '192.168.1.20:54321',
      storeTimestamp: 1700000000123,
      storeHost: '127.0.0.1:10911',
      reconsumeTimes: 2,
      preparedTransactionOffset: 0,
      // 7F000001 (127.0.0.1) · 00002A9F (10911) · 000000000001E240 (123456)
      offsetMsgId: '7F00000100002A9F000000000001E240',
      bodyCRC: 0x12345678,
      storeSize: bytes.length,
    });
  });

  it('matches the encoder byte for byte', () => {
    expect(encodeMessageRecord(base)).toEqual(handBuiltRecord(Buffer.from('hello')));
  });

  it('inflates a ZLIB body (type 3, and type 0 from 4.x producers) and clears COMPRESSED', () => {
    const plain = Buffer.from('x'.repeat(5000));
    for (const sysFlag of [0x301, 0x1]) {
      const [record] = decodeMessageRecords(handBuiltRecord(deflateSync(plain), sysFlag), { brokerName: 'b' });
      expect(record!.body).toEqual(plain);
      expect(record!.sysFlag).toBe(sysFlag & ~1);
    }
  });

  it('inflates LZ4 and ZSTD bodies too, keeping their type bits and clearing COMPRESSED', async () => {
    // Node 20 has no zstd in node:zlib: its WASM encoder loads first, as a producer does at start.
    await prepareCompression('ZSTD');
    for (const sysFlag of [0x101, 0x201]) {
      const bytes = encodeMessageRecord({ ...base, sysFlag, body: Buffer.from('lz4 or zstd '.repeat(500)) });
      const [record] = decodeMessageRecords(bytes, { brokerName: 'b' });
      expect(record!.body.toString()).toBe('lz4 or zstd '.repeat(500));
      expect(record!.sysFlag).toBe(sysFlag & ~1);
    }
  });

  it('a body that does not inflate is a ProtocolError naming the message and its type', () => {
    expect(() =>
      decodeMessageRecords(handBuiltRecord(Buffer.from('not an lz4 frame'), 0x101), { brokerName: 'b' }),
    ).toThrow(/^message .+@b:\d+ offset \d+: LZ4 body does not inflate/);
  });

  it('reads IPv6 born and store hosts by sysFlag and makes a 56-char offsetMsgId', () => {
    const bytes = encodeMessageRecord({ ...base, bornHost: '[2001:db8::5]:40000', storeHost: '[::1]:10911' });
    const [record] = decodeMessageRecords(bytes, { brokerName: 'b' });
    expect(record!.sysFlag & (MessageSysFlag.BORNHOST_V6 | MessageSysFlag.STOREHOSTADDRESS_V6)).toBe(0x30);
    expect(record!.bornHost).toBe('[2001:db8::5]:40000');
    expect(record!.storeHost).toBe('[::1]:10911');
    expect(record!.offsetMsgId).toBe('0000000000000000000000000000000100002A9F000000000001E240');
    expect(record!.storeSize).toBe(bytes.length);
  });

  it('reads a V2 record (2-byte topic length) for topics over 127 bytes', () => {
    const topic = `%RETRY%${'g'.repeat(200)}`;
    const bytes = encodeMessageRecord({ ...base, topic });
    expect(bytes.readInt32BE(4)).toBe(MessageMagic.V2);
    expect(decodeMessageRecords(bytes, { brokerName: 'b' })[0]!.topic).toBe(topic);
  });

  it('decodes records back to back, as a pull body holds them', () => {
    const body = Buffer.concat(
      [0, 1, 2].map((i) => encodeMessageRecord({ ...base, queueOffset: i, body: Buffer.from(`m${i}`) })),
    );
    const records = decodeMessageRecords(body, { brokerName: 'b' });
    expect(records.map((r) => [r.queueOffset, r.body.toString()])).toEqual([
      [0, 'm0'],
      [1, 'm1'],
      [2, 'm2'],
    ]);
  });

  it('unwraps an inner batch into its messages with consecutive queue offsets', () => {
    const inner = encodeBatchBody([
      { flag: 1, body: Buffer.from('a'), properties: { TAGS: 'x' } },
      { flag: 2, body: Buffer.from('bb'), properties: { TAGS: 'y' } },
    ]);
    const sysFlag = MessageSysFlag.INNER_BATCH | MessageSysFlag.NEED_UNWRAP;
    const bytes = encodeMessageRecord({ ...base, sysFlag, body: inner, properties: {} });
    const records = decodeMessageRecords(bytes, { brokerName: 'b' });
    expect(
      records.map((r) => [r.queueOffset, r.flag, r.body.toString(), r.properties.TAGS, r.commitLogOffset]),
    ).toEqual([
      [41, 1, 'a', 'x', 123456],
      [42, 2, 'bb', 'y', 123456],
    ]);
    expect(decodeMessageRecords(bytes, { brokerName: 'b', unwrapInnerBatch: false })).toHaveLength(1);
  });

  it('decodes exactly one record for CONSUME_MESSAGE_DIRECTLY', () => {
    expect(decodeMessageRecord(encodeMessageRecord(base), { brokerName: 'b' }).topic).toBe('TopicTest');
    expect(() => decodeMessageRecord(Buffer.alloc(0), { brokerName: 'b' })).toThrow(MessageDecodeError);
  });

  it('keeps the records before a bad one in the error', () => {
    const good = encodeMessageRecord(base);
    const bad = Buffer.from(good);
    bad.writeInt32BE(0x0badc0de, 4);
    let caught: unknown;
    try {
      decodeMessageRecords(Buffer.concat([good, good, bad]), { brokerName: 'b' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(MessageDecodeError);
    expect(caught).toBeInstanceOf(ProtocolError);
    expect((caught as MessageDecodeError).decoded).toHaveLength(2);
    expect((caught as MessageDecodeError).position).toBe(2 * good.length);
  });

  it('reports an offset beyond 2^53 as a typed error', () => {
    const bytes = encodeMessageRecord(base);
    bytes.writeBigInt64BE(2n ** 60n, 20);
    let caught: unknown;
    try {
      decodeMessageRecords(bytes, { brokerName: 'b' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(MessageDecodeError);
    expect((caught as MessageDecodeError).cause).toBeInstanceOf(UnsafeLongError);
  });

  const corruptions: Array<[string, (b: Buffer) => Buffer]> = [
    ['a size past the buffer', inPlace((b) => b.writeInt32BE(b.length + 1, 0))],
    ['a size below the minimum', inPlace((b) => b.writeInt32BE(90, 0))],
    ['a truncated record', (b) => b.subarray(0, b.length - 1)],
    ['three stray bytes after a record', (b) => Buffer.concat([b, Buffer.from([1, 2, 3])])],
    ['an unknown magic', inPlace((b) => b.writeInt32BE(1, 4))],
    ['a negative body length', inPlace((b) => b.writeInt32BE(-1, 84))],
    ['a body length past the record', inPlace((b) => b.writeInt32BE(1000, 84))],
    ['a negative V1 topic length', inPlace((b) => b.writeInt8(-1, 93))],
    ['a born port over 65535', inPlace((b) => b.writeInt32BE(70000, 52))],
    ['an IPv6 flag on IPv4 hosts', inPlace((b) => b.writeInt32BE(0x10, 36))],
    ['a ZLIB flag on a plain body', inPlace((b) => b.writeInt32BE(0x301, 36))],
    ['an unknown compression type', inPlace((b) => b.writeInt32BE(0x701, 36))],
    ['an inner batch flag on a plain body', inPlace((b) => b.writeInt32BE(0xc0, 36))],
  ];
  it.each(corruptions)('rejects %s with a MessageDecodeError', (_name, corrupt) => {
    const bytes = corrupt(encodeMessageRecord(base));
    expect(() => decodeMessageRecords(bytes, { brokerName: 'b' })).toThrow(MessageDecodeError);
  });

  it('refuses a zlib bomb beyond the inflate cap', () => {
    const bytes = encodeMessageRecord({ ...base, sysFlag: 0x301, body: Buffer.alloc(1 << 20) });
    expect(bytes.length).toBeLessThan(5000);
    expect(() => decodeMessageRecords(bytes, { brokerName: 'b', maxInflatedBytes: 1 << 19 })).toThrow(
      MessageDecodeError,
    );
  });
});
