import { ProtocolError } from '@mqkit/core';
import { describe, expect, it } from 'vitest';
import { decodeRocketMqHeader, encodeRocketMqHeader } from './rocketmq-header.codec';
import { emptyFields } from './remoting-command';

const base = {
  code: 103,
  language: 'JAVA',
  version: 2333,
  opaque: 7,
  flag: 0,
  remark: undefined,
  extFields: emptyFields(),
};

/** A corruption that writes into the encoded bytes in place and hands the same buffer on. */
const inPlace =
  (write: (b: Buffer) => unknown) =>
  (b: Buffer): Buffer => {
    write(b);
    return b;
  };

describe('ROCKETMQ binary header', () => {
  // Sizes and offsets from RocketMQSerializableTest (apache/rocketmq): 21, 34 and 35 bytes.
  it('lays out a bare header in 21 bytes, as RocketMQSerializable does', () => {
    const bytes = encodeRocketMqHeader(base);
    expect(bytes).toHaveLength(21);
    expect(bytes.readInt16BE(0)).toBe(103);
    expect(bytes[2]).toBe(0);
    expect(bytes.readInt16BE(3)).toBe(2333);
    expect(bytes.readInt32BE(5)).toBe(7);
    expect(bytes.readInt32BE(9)).toBe(0);
    expect(bytes.readInt32BE(13)).toBe(0);
    expect(bytes.readInt32BE(17)).toBe(0);
    expect(decodeRocketMqHeader(bytes)).toEqual({ ...base, extFields: {} });
  });

  it('writes the remark with an int length (34 bytes for "Sample Remark")', () => {
    const bytes = encodeRocketMqHeader({ ...base, remark: 'Sample Remark' });
    expect(bytes).toHaveLength(34);
    expect(bytes.readInt32BE(13)).toBe(13);
    expect(bytes.toString('utf8', 17, 30)).toBe('Sample Remark');
    expect(decodeRocketMqHeader(bytes).remark).toBe('Sample Remark');
  });

  it('writes extFields as short key length, key, int value length, value (35 bytes for key=value)', () => {
    const bytes = encodeRocketMqHeader({ ...base, extFields: { key: 'value' } });
    expect(bytes).toHaveLength(35);
    expect(bytes.readInt32BE(17)).toBe(14);
    expect(bytes.readUInt16BE(21)).toBe(3);
    expect(bytes.readInt32BE(26)).toBe(5);
    expect(decodeRocketMqHeader(bytes).extFields).toEqual({ key: 'value' });
  });

  it('round-trips UTF-8 text, negative opaques and the language byte', () => {
    const header = {
      ...base,
      code: 310,
      language: 'GO',
      opaque: -5,
      flag: 3,
      remark: 'ünïcode ✓',
      extFields: { 'k€y': 'välue', a: '1' },
    };
    expect(decodeRocketMqHeader(encodeRocketMqHeader(header))).toEqual(header);
  });

  it('reads an unknown language byte as undefined, as Java reads it as null', () => {
    const bytes = encodeRocketMqHeader(base);
    bytes[2] = 99;
    expect(decodeRocketMqHeader(bytes).language).toBeUndefined();
  });

  it('leaves out entries whose key or value has length 0 (null in Java)', () => {
    const bytes = encodeRocketMqHeader({ ...base, extFields: { a: '', b: 'x' } });
    expect(decodeRocketMqHeader(bytes).extFields).toEqual({ b: 'x' });
  });

  it('refuses codes a short cannot carry (POP 200050)', () => {
    expect(() => encodeRocketMqHeader({ ...base, code: 200050 })).toThrow(ProtocolError);
  });

  it.each([
    ['too short', (b: Buffer) => b.subarray(0, 20)],
    ['remark length past the end', inPlace((b) => b.writeInt32BE(1000, 13))],
    ['negative remark length', inPlace((b) => b.writeInt32BE(-1, 13))],
    ['ext length past the end', inPlace((b) => b.writeInt32BE(1000, 17))],
    ['negative key length', inPlace((b) => b.writeInt16BE(-2, 21))],
    ['value length past the block', inPlace((b) => b.writeInt32BE(6, 26))],
    ['trailing bytes', (b: Buffer) => Buffer.concat([b, Buffer.from([0])])],
  ])('rejects %s with a ProtocolError', (_name, corrupt) => {
    const bytes = corrupt(encodeRocketMqHeader({ ...base, extFields: { key: 'value' } }));
    expect(() => decodeRocketMqHeader(bytes)).toThrow(ProtocolError);
  });
});
