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

/**
 * An upper bound of what the LZ4 frames in `bytes` inflate to, read from their headers without inflating: a
 * block inflates to at most the frame's block size (an uncompressed one to its own length). The decoder has no
 * output cap of its own, so this is what keeps a small body that claims gigabytes from being inflated. Throws a
 * ProtocolError when the bytes are not LZ4 frames (Java's LZ4FrameOutputStream writes one frame).
 */
export function lz4FrameBound(bytes: Uint8Array): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const need = (at: number, n: number, what: string) => {
    if (at + n > bytes.length) throw new ProtocolError(`LZ4 frame ends inside its ${what}`);
  };
  let at = 0;
  let bound = 0;
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
      bound += word & UNCOMPRESSED_BLOCK ? size : blockMax;
      at += size + (flg & FLG_BLOCK_CHECKSUM ? 4 : 0);
    }
    at += flg & FLG_CONTENT_CHECKSUM ? 4 : 0;
  } while (at < bytes.length);
  if (at > bytes.length) throw new ProtocolError('LZ4 frame ends inside a block');
  return bound;
}
