import { MessageValidationError, ProtocolError } from '@mqkit/core';
import { describe, expect, it } from 'vitest';
import { decodeBatchBody, encodeBatchBody, type BatchEntry } from './batch-body.codec';

/** A corruption that writes into the encoded bytes in place and hands the same buffer on. */
const inPlace =
  (write: (b: Buffer) => unknown) =>
  (b: Buffer): Buffer => {
    write(b);
    return b;
  };

describe('batch body codec (SEND_BATCH_MESSAGE)', () => {
  it('lays out totalSize, magic 0, bodyCRC 0, flag, body and i16 properties per message', () => {
    const bytes = encodeBatchBody([{ flag: 9, body: Buffer.from('abc'), properties: { K: 'v' } }]);
    // 20 + 3 body + 2 + 4 properties ("K\u0001v\u0002")
    expect(bytes).toHaveLength(29);
    expect(bytes.readInt32BE(0)).toBe(29);
    expect(bytes.readInt32BE(4)).toBe(0);
    expect(bytes.readInt32BE(8)).toBe(0);
    expect(bytes.readInt32BE(12)).toBe(9);
    expect(bytes.readInt32BE(16)).toBe(3);
    expect(bytes.toString('utf8', 20, 23)).toBe('abc');
    expect(bytes.readInt16BE(23)).toBe(4);
    expect(bytes.toString('utf8', 25)).toBe('K\u0001v\u0002');
  });

  it('decodes what it encodes, message after message', () => {
    const entries: BatchEntry[] = [
      { flag: 0, body: Buffer.from('one'), properties: { UNIQ_KEY: 'A', WAIT: 'true' } },
      { flag: 1, body: Buffer.alloc(0), properties: {} },
      { flag: -1, body: Buffer.from('ünï'), properties: { TAGS: 't' } },
    ];
    const decoded = decodeBatchBody(encodeBatchBody(entries));
    expect(decoded.map(({ flag, body, properties }) => ({ flag, body, properties }))).toEqual(entries);
  });

  it('refuses properties over 32767 bytes, which the i16 length cannot hold', () => {
    expect(() => encodeBatchBody([{ flag: 0, body: Buffer.from('x'), properties: { K: 'v'.repeat(40000) } }])).toThrow(
      MessageValidationError,
    );
  });

  it.each([
    ['a size past the end', inPlace((b) => b.writeInt32BE(100, 0))],
    ['a body length past the entry', inPlace((b) => b.writeInt32BE(100, 16))],
    ['a properties length that disagrees with the size', inPlace((b) => b.writeInt16BE(1, 23))],
    ['a truncated tail', (b: Buffer) => Buffer.concat([b, Buffer.from([0, 0, 0])])],
  ])('rejects %s', (_name, corrupt) => {
    const bytes = corrupt(encodeBatchBody([{ flag: 9, body: Buffer.from('abc'), properties: { K: 'v' } }]));
    expect(() => decodeBatchBody(bytes)).toThrow(ProtocolError);
  });
});
