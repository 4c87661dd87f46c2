import { ProtocolError } from '../errors/protocol.error';

const MAGIC = 0x184d2204;
const SKIPPABLE_MIN = 0x184d2a50;
const SKIPPABLE_MAX = 0x184d2a5f;
/** BD byte bits 4-6: the largest block of the frame, 64 KiB to 4 MiB. */
const BLOCK_MAX = new Map([
  [4, 64 * 1024],
  [5, 256 * 1024],
  [6, 1024 * 1024],
  [7, 4 * 1024 * 1024],
]);
const FLG_BLOCK_CHECKSUM = 0x10;
const FLG_CONTENT_SIZE = 0x08;
const FLG_CONTENT_CHECKSUM = 0x04;
const UNCOMPRESSED_BLOCK = 0x80000000;

/** One data block of an LZ4 frame: where its bytes are, whether they are stored as is, and the frame's block size. */
interface FrameBlock {
  readonly start: number;
  readonly end: number;
  readonly uncompressed: boolean;
  readonly blockMax: number;
}

/**
 * Walks the LZ4 frames in `bytes` (the frame format: magic, descriptor, blocks, end mark; skippable frames
 * skipped) and hands each data block to `visit`. Checksums are skipped, not checked: Java's LZ4FrameOutputStream
 * writes none. Throws a ProtocolError when the bytes are not LZ4 frames.
 */
function walkFrames(bytes: Uint8Array, visit: (block: FrameBlock) => void): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const need = (at: number, n: number, what: string) => {
    if (at + n > bytes.length) throw new ProtocolError(`LZ4 frame ends inside its ${what}`);
  };
  let at = 0;
  do {
    need(at, 4, 'magic number');
    const magic = view.getUint32(at, true);
    if (magic >= SKIPPABLE_MIN && magic <= SKIPPABLE_MAX) {
      need(at + 4, 4, 'skippable frame size');
      at += 8 + view.getUint32(at + 4, true);
      continue;
    }
    if (magic !== MAGIC) throw new ProtocolError(`LZ4 frame has magic number 0x${magic.toString(16)}`);
    need(at + 4, 2, 'descriptor');
    const flg = bytes[at + 4]!;
    if (flg >> 6 !== 1) throw new ProtocolError(`LZ4 frame version ${flg >> 6} is not 1`);
    const blockMax = BLOCK_MAX.get((bytes[at + 5]! >> 4) & 0x7);
    if (blockMax === undefined) throw new ProtocolError(`LZ4 frame has block size code ${(bytes[at + 5]! >> 4) & 0x7}`);
    at += 6 + (flg & FLG_CONTENT_SIZE ? 8 : 0) + 1;
    for (;;) {
      need(at, 4, 'block size');
      const word = view.getUint32(at, true);
      at += 4;
      if (word === 0) break;
      const size = word & 0x7fffffff;
      if (size > blockMax) throw new ProtocolError(`LZ4 block of ${size} bytes exceeds the frame's ${blockMax}`);
      need(at, size, 'block');
      visit({ start: at, end: at + size, uncompressed: (word & UNCOMPRESSED_BLOCK) !== 0, blockMax });
      at += size + (flg & FLG_BLOCK_CHECKSUM ? 4 : 0);
    }
    at += flg & FLG_CONTENT_CHECKSUM ? 4 : 0;
  } while (at < bytes.length);
  if (at > bytes.length) throw new ProtocolError('LZ4 frame ends inside its checksum');
}

/**
 * An upper bound of what the LZ4 frames in `bytes` inflate to, read from their headers without inflating: a
 * block inflates to at most the frame's block size (an uncompressed one to its own length). This is what keeps a
 * small body that claims gigabytes from being inflated.
 */
export function lz4FrameBound(bytes: Uint8Array): number {
  let bound = 0;
  walkFrames(bytes, (b) => (bound += b.uncompressed ? b.end - b.start : b.blockMax));
  return bound;
}

/** LZ4's block format, both ways: the codec's part (lz4-napi); the frames around the blocks are done here. */
export interface Lz4Blocks {
  /** Inflates one block into at most `capacity` bytes. */
  decompressBlock(block: Buffer, capacity: number): Buffer;
  compressBlock(data: Buffer): Buffer;
}

/**
 * Inflates LZ4 frames: refuses them when {@link lz4FrameBound} is over `max`, then inflates block by block.
 * Frames are parsed here and only blocks go to the codec: lz4-napi's own frame decoder costs 8-11 ms per MiB
 * where its block decoder costs 1 (`npm run bench -- compression`).
 */
export function inflateLz4Frames(bytes: Buffer, max: number, codec: Lz4Blocks): Buffer {
  const bound = lz4FrameBound(bytes);
  if (bound > max) throw new RangeError(`its frames may inflate to ${bound} bytes, over the cap of ${max}`);
  const parts: Buffer[] = [];
  walkFrames(bytes, (b) => {
    const data = bytes.subarray(b.start, b.end);
    parts.push(b.uncompressed ? data : codec.decompressBlock(data, b.blockMax));
  });
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}

/**
 * The frame Java's LZ4FrameOutputStream writes by default: FLG 0x60 (version 1, independent blocks, no checksums,
 * no content size), BD 0x70 (4 MiB blocks), and the header checksum of those two bytes (xxHash32 >> 8 & 0xff), which
 * for them is always 0x73. A block that does not shrink is stored as is, as the format allows.
 */
const FRAME_HEADER = Buffer.from([0x04, 0x22, 0x4d, 0x18, 0x60, 0x70, 0x73]);
const WRITE_BLOCK = 4 * 1024 * 1024;

export function writeLz4Frame(body: Buffer, codec: Lz4Blocks): Buffer {
  const parts: Buffer[] = [FRAME_HEADER];
  for (let at = 0; at < body.length; at += WRITE_BLOCK) {
    const data = body.subarray(at, Math.min(body.length, at + WRITE_BLOCK));
    const packed = codec.compressBlock(data);
    const size = Buffer.alloc(4);
    if (packed.length < data.length) {
      size.writeUInt32LE(packed.length);
      parts.push(size, packed);
    } else {
      size.writeUInt32LE((data.length | UNCOMPRESSED_BLOCK) >>> 0);
      parts.push(size, data);
    }
  }
  parts.push(Buffer.alloc(4));
  return Buffer.concat(parts);
}
