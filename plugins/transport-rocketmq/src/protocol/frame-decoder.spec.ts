import { ProtocolError } from '@mqkit/core';
import { describe, expect, it } from 'vitest';
import { decodeCommand, encodeCommand } from './frame.codec';
import { FrameDecoder } from './frame-decoder';
import { MAX_FRAME_LENGTH } from './remoting-codes';
import { remotingCommand } from './remoting-command';

const frames = [0, 1, 2, 3, 4].map((i) =>
  encodeCommand(remotingCommand({ code: 11, opaque: i, extFields: { i: String(i) }, body: Buffer.alloc(i * 50, i) })),
);
const stream = Buffer.concat(frames);
const opaques = (out: Buffer[]): number[] => out.map((f) => decodeCommand(f).opaque);
const collect = (decoder: FrameDecoder, chunk: Buffer, out: Buffer[] = []): Buffer[] => {
  decoder.push(chunk, (frame) => out.push(frame));
  return out;
};

describe('FrameDecoder', () => {
  it('splits many frames arriving in one chunk', () => {
    expect(opaques(collect(new FrameDecoder(), stream))).toEqual([0, 1, 2, 3, 4]);
  });

  it('reassembles frames fed one byte at a time', () => {
    const decoder = new FrameDecoder();
    const out: Buffer[] = [];
    for (let i = 0; i < stream.length; i++) collect(decoder, stream.subarray(i, i + 1), out);
    expect(opaques(out)).toEqual([0, 1, 2, 3, 4]);
    expect(out.map((f) => decodeCommand(f).body)).toEqual(frames.map((_, i) => Buffer.alloc(i * 50, i)));
    expect(decoder.pendingBytes).toBe(0);
  });

  it('handles every split point of the stream into two chunks', () => {
    for (let cut = 0; cut <= stream.length; cut++) {
      const decoder = new FrameDecoder();
      const out = collect(decoder, stream.subarray(cut), collect(decoder, stream.subarray(0, cut)));
      expect(opaques(out)).toEqual([0, 1, 2, 3, 4]);
    }
  });

  it('keeps a partial frame until the rest arrives', () => {
    const decoder = new FrameDecoder();
    expect(collect(decoder, frames[1]!.subarray(0, 10))).toEqual([]);
    expect(decoder.pendingBytes).toBe(6);
    expect(opaques(collect(decoder, frames[1]!.subarray(10)))).toEqual([1]);
  });

  it('accepts a frame of exactly 16 MiB with its prefix and refuses one byte more', () => {
    const ok = Buffer.alloc(8);
    ok.writeInt32BE(MAX_FRAME_LENGTH - 4, 0);
    expect(collect(new FrameDecoder(), ok)).toEqual([]);
    const big = Buffer.alloc(8);
    big.writeInt32BE(MAX_FRAME_LENGTH - 3, 0);
    expect(() => collect(new FrameDecoder(), big)).toThrow(/exceeds/);
  });

  it.each([
    ['a negative length', -1],
    ['a length below 4', 3],
  ])('rejects %s after delivering the frames before it, then refuses more input', (_name, length) => {
    const decoder = new FrameDecoder();
    const bad = Buffer.alloc(4);
    bad.writeInt32BE(length, 0);
    const out: Buffer[] = [];
    expect(() => collect(decoder, Buffer.concat([frames[0]!, bad]), out)).toThrow(ProtocolError);
    expect(opaques(out)).toEqual([0]);
    expect(() => collect(decoder, frames[1]!)).toThrow(ProtocolError);
  });
});
