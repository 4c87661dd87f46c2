import { ProtocolError } from '@mqkit/core';
import { describe, expect, it } from 'vitest';
import { decodeCommand, encodeCommand } from './frame.codec';
import { MAX_FRAME_LENGTH, SerializeType } from './remoting-codes';
import { remotingCommand } from './remoting-command';

describe('frame codec', () => {
  it('lays out length, type+header length, header and body (JSON)', () => {
    const cmd = remotingCommand({
      code: 38,
      opaque: 5,
      language: 'JAVA',
      version: 479,
      extFields: { consumerGroup: 'g' },
      body: Buffer.from('xyz'),
    });
    const frame = encodeCommand(cmd);
    const headerLength = frame.readUInt32BE(4) & 0xffffff;
    expect(frame[4]).toBe(0);
    expect(frame.readInt32BE(0)).toBe(frame.length - 4);
    expect(frame.readInt32BE(0)).toBe(4 + headerLength + 3);
    expect(JSON.parse(frame.toString('utf8', 8, 8 + headerLength))).toMatchObject({
      code: 38,
      opaque: 5,
      extFields: { consumerGroup: 'g' },
    });
    expect(frame.subarray(8 + headerLength).toString()).toBe('xyz');
    expect(decodeCommand(frame.subarray(4))).toEqual(cmd);
  });

  it('counts a JSON header written in place by its UTF-8 bytes, not its characters', () => {
    // 'é' and the emoji are 2 and 4 bytes: a header length in characters would cut the header short.
    const cmd = remotingCommand({
      code: 310,
      opaque: 9,
      language: 'JAVA',
      version: 479,
      remark: 'é 🚀',
      extFields: { topic: 'Café' },
      body: Buffer.from('b'),
    });
    const frame = encodeCommand(cmd);
    const headerLength = frame.readUInt32BE(4) & 0xffffff;
    const text = frame.toString('utf8', 8, 8 + headerLength);
    expect(headerLength).toBe(Buffer.byteLength(text));
    expect(headerLength).toBeGreaterThan(text.length);
    expect(frame.readInt32BE(0)).toBe(4 + headerLength + 1);
    expect(decodeCommand(frame.subarray(4))).toEqual(cmd);
  });

  it('marks a ROCKETMQ header with type byte 1 and decodes it back', () => {
    const cmd = remotingCommand({
      code: 11,
      opaque: 77,
      flag: 1,
      language: 'JAVA',
      version: 479,
      remark: 'FOUND',
      extFields: { nextBeginOffset: '32' },
      serializeType: SerializeType.ROCKETMQ,
    });
    const frame = encodeCommand(cmd);
    expect(frame[4]).toBe(1);
    expect(decodeCommand(frame.subarray(4))).toEqual(cmd);
  });

  it('decodes a frame built by hand from the Java layout', () => {
    const header = Buffer.from(
      '{"code":40,"extFields":{"consumerGroup":"G"},"flag":2,"language":"JAVA","opaque":3,"version":479}',
    );
    const frame = Buffer.alloc(8 + header.length);
    frame.writeInt32BE(4 + header.length, 0);
    frame.writeInt32BE(header.length, 4);
    header.copy(frame, 8);
    const cmd = decodeCommand(frame.subarray(4));
    expect(cmd).toMatchObject({ code: 40, flag: 2, opaque: 3, extFields: { consumerGroup: 'G' } });
    expect(cmd.body).toHaveLength(0);
  });

  it('refuses to encode a frame over 16 MiB', () => {
    const body = Buffer.alloc(MAX_FRAME_LENGTH);
    expect(() => encodeCommand(remotingCommand({ code: 10, opaque: 1, body }))).toThrow(ProtocolError);
  });

  it.each([
    ['a frame shorter than its header length field', Buffer.from([0, 0])],
    ['an unknown serialize type', Buffer.from([2, 0, 0, 2, 0x7b, 0x7d])],
    ['a header length past the frame', Buffer.from([0, 0, 0, 9, 0x7b, 0x7d])],
    ['an empty JSON header', Buffer.from([0, 0, 0, 0])],
  ])('rejects %s with a ProtocolError', (_name, frame) => {
    expect(() => decodeCommand(frame)).toThrow(ProtocolError);
  });
});
