import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../errors/protocol.error';
import { compressWith, inflateBody, prepareCompression } from './body-codec';
import { COMPRESSION_TYPES, compressionFlags, compressionTypeOf, type CompressionType } from './compression-type';
import { lz4FrameBound } from './lz4-frame';
import { zlibZstd } from './native-codecs';

/** The text CompressionVectors.java compresses (apps/bench/java): 200 JSON lines. */
function javaText(): Buffer {
  let text = '';
  for (let i = 0; i < 200; i++) text += `{"order":${i},"sku":"sku-${i % 7}"}\n`;
  return Buffer.from(text, 'utf8');
}

const vectors = (
  JSON.parse(readFileSync(join(__dirname, 'java-compression-vectors.fixture.json'), 'utf8')) as {
    vectors: Record<CompressionType, { sysFlag: number; body: string }>;
  }
).vectors;

/** Bodies that compress well, badly, and not at all, over RocketMQ's 4 KiB threshold. */
function samples(): Buffer[] {
  const noise = Buffer.alloc(64 * 1024);
  let x = 12345;
  for (let i = 0; i < noise.length; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    noise[i] = x >>> 24;
  }
  return [javaText(), noise, Buffer.alloc(5 * 1024 * 1024, 'a'), Buffer.from('x')];
}

describe('body compression: every type RocketMQ 5 writes, on this Node', () => {
  it('knows the sysFlag bits of Java 5.3.3 (COMPRESSED | type << 8) and reads a 4.x producer flag as ZLIB', () => {
    expect(compressionFlags('LZ4')).toBe(0x101);
    expect(compressionFlags('ZSTD')).toBe(0x201);
    expect(compressionFlags('ZLIB')).toBe(0x301);
    expect(compressionTypeOf(0x1)).toBe('ZLIB');
    expect(compressionTypeOf(0x300)).toBeUndefined();
    expect(compressionTypeOf(0x401)).toBe('unknown');
  });

  for (const type of COMPRESSION_TYPES) {
    it(`inflates the bytes Java's ${type} compressor wrote, and clears only the COMPRESSED bit`, () => {
      const vector = vectors[type];
      expect(vector.sysFlag).toBe(compressionFlags(type));
      const stored = Buffer.from(vector.body, 'base64');
      const { body, sysFlag } = inflateBody(stored, vector.sysFlag | 0x4);
      expect(body.equals(javaText())).toBe(true);
      expect(sysFlag).toBe((vector.sysFlag & ~0x1) | 0x4);
    });

    it(`${type}: what mqkit compresses inflates back, from 1 byte to 5 MiB`, async () => {
      await prepareCompression(type);
      for (const plain of samples()) {
        const stored = compressWith(type, plain, 5);
        expect(inflateBody(stored, compressionFlags(type)).body.equals(plain)).toBe(true);
      }
    });

    it(`${type}: a body that inflates past the cap is a ProtocolError naming the message and the type`, async () => {
      await prepareCompression(type);
      const bomb = compressWith(type, Buffer.alloc(8 * 1024 * 1024), 5);
      expect(bomb.length).toBeLessThan(1024 * 1024);
      expect(() => inflateBody(bomb, compressionFlags(type), 1024 * 1024, 'message T@b:0 offset 7')).toThrow(
        new RegExp(`^message T@b:0 offset 7: ${type} body does not inflate`),
      );
    });

    it(`${type}: corrupt bytes are a ProtocolError, not a crash`, async () => {
      await prepareCompression(type);
      const good = compressWith(type, javaText(), 5);
      for (const bad of [good.subarray(0, good.length >> 1), Buffer.from('not compressed at all'), Buffer.alloc(9)]) {
        expect(() => inflateBody(bad, compressionFlags(type))).toThrow(ProtocolError);
      }
    });
  }

  it("LZ4 frames start as Java's do (magic, FLG 0x60, BD 0x70, header checksum), and store a block that does not shrink as is", () => {
    const java = Buffer.from(vectors.LZ4.body, 'base64');
    expect(compressWith('LZ4', javaText(), 5).subarray(0, 7).equals(java.subarray(0, 7))).toBe(true);
    const noise = samples()[1]!;
    const stored = compressWith('LZ4', noise, 5);
    expect(stored.readUInt32LE(7)).toBe((noise.length | 0x80000000) >>> 0);
    expect(inflateBody(stored, compressionFlags('LZ4')).body.equals(noise)).toBe(true);
  });

  it('a type that does not exist (4-7) is a ProtocolError naming it', () => {
    expect(() => inflateBody(Buffer.from('abc'), 0x501, undefined, 'message X')).toThrow(
      'message X: unknown compression type 5 in sysFlag 0x501',
    );
  });

  it('ZLIB compresses as java.util.zip.Deflater at the given level (a zlib stream)', () => {
    const plain = javaText();
    expect(compressWith('ZLIB', plain, 5).equals(zlib.deflateSync(plain, { level: 5 }))).toBe(true);
    expect(compressWith('ZLIB', plain, 9).length).toBeLessThanOrEqual(compressWith('ZLIB', plain, 1).length);
  });

  it(`ZSTD on this Node (${process.version}) uses ${zlibZstd ? 'node:zlib' : 'fzstd and the WASM encoder'}`, async () => {
    await prepareCompression('ZSTD');
    const plain = javaText();
    // Level changes the output, so the level reaches the encoder.
    expect(compressWith('ZSTD', plain, 1).equals(compressWith('ZSTD', plain, 19))).toBe(false);
  });
});

describe('lz4FrameBound: what LZ4 frames may inflate to, from their headers', () => {
  const frame = (flg: number, bd: number, blocks: Buffer[], contentSize?: number) => {
    const head = [Buffer.from([0x04, 0x22, 0x4d, 0x18, flg, bd])];
    if (contentSize !== undefined) {
      const size = Buffer.alloc(8);
      size.writeBigUInt64LE(BigInt(contentSize));
      head.push(size);
    }
    return Buffer.concat([...head, Buffer.from([0]), ...blocks, Buffer.alloc(4)]);
  };
  const block = (length: number, uncompressed = false) => {
    const size = Buffer.alloc(4);
    size.writeUInt32LE((length | (uncompressed ? 0x80000000 : 0)) >>> 0);
    return Buffer.concat([size, Buffer.alloc(length)]);
  };

  it('counts the block size per compressed block and the length of an uncompressed one', () => {
    expect(lz4FrameBound(frame(0x60, 0x40, [block(10), block(20)]))).toBe(2 * 64 * 1024);
    expect(lz4FrameBound(frame(0x60, 0x70, [block(100, true)]))).toBe(100);
    expect(lz4FrameBound(frame(0x68, 0x50, [block(10)], 5))).toBe(256 * 1024);
    expect(lz4FrameBound(Buffer.concat([frame(0x60, 0x40, [block(1)]), frame(0x60, 0x40, [block(1)])]))).toBe(
      2 * 64 * 1024,
    );
  });

  it('refuses what is not an LZ4 frame, and a frame cut short', () => {
    expect(() => lz4FrameBound(Buffer.from('hello world!'))).toThrow(/magic number/);
    expect(() => lz4FrameBound(frame(0x60, 0x40, [block(10)]).subarray(0, 12))).toThrow(/ends inside/);
    expect(() => lz4FrameBound(frame(0xa0, 0x40, []))).toThrow(/version 2/);
    expect(() => lz4FrameBound(frame(0x60, 0x10, []))).toThrow(/block size code 1/);
    expect(() => lz4FrameBound(frame(0x60, 0x40, [block(70_000)]))).toThrow(/exceeds/);
  });
});
