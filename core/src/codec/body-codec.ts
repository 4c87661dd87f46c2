import * as zlib from 'node:zlib';
import { ProtocolError } from '../errors/protocol.error';
import { IllegalStateError } from '../errors/state.error';
import { compressionTypeOf, COMPRESSED_FLAG, COMPRESSION_TYPE_MASK, type CompressionType } from './compression-type';
import { inflateLz4Frames, writeLz4Frame } from './lz4-frame';
import { loadFzstd, loadLz4, prepareWasmZstd, wasmZstd, zlibZstd } from './native-codecs';

/** Default cap on an inflated body: far above RocketMQ's 4 MiB message limit, far below what a bomb could claim. */
export const DEFAULT_MAX_INFLATED_BYTES = 64 * 1024 * 1024;

/** Compresses `body` as Java's producer does for `type` (ZlibCompressor, Lz4Compressor, ZstdCompressor). */
export function compressWith(type: CompressionType, body: Buffer, level: number): Buffer {
  switch (type) {
    case 'ZLIB':
      // java.util.zip.Deflater wrapped in DeflaterOutputStream: a zlib stream (header, deflate, Adler-32).
      return zlib.deflateSync(body, { level });
    case 'LZ4': {
      // LZ4FrameOutputStream: the LZ4 frame format; Java ignores the level.
      const lz4 = loadLz4();
      if (lz4 instanceof Error) throw lz4;
      return writeLz4Frame(body, lz4);
    }
    case 'ZSTD': {
      if (zlibZstd) return zlibZstd.compress(body, { params: { [zlibZstd.levelParam]: level } });
      const wasm = wasmZstd();
      if (!wasm)
        throw new IllegalStateError('ZSTD compression is not loaded yet: await prepareCompression("ZSTD") first');
      return Buffer.from(wasm.compress(body, level));
    }
  }
}

/**
 * Makes `type` ready to compress synchronously: on a Node without zstd in node:zlib that loads the WASM encoder,
 * and for LZ4 it checks that the platform's binary loads. Rejects with the reason when it cannot.
 */
export async function prepareCompression(type: CompressionType): Promise<void> {
  if (type === 'LZ4') {
    const lz4 = loadLz4();
    if (lz4 instanceof Error) throw lz4;
  }
  if (type === 'ZSTD' && !zlibZstd) await prepareWasmZstd();
}

/** A stored body as the consumer should see it, and the sysFlag to report with it. */
export interface InflatedBody {
  readonly body: Buffer;
  readonly sysFlag: number;
}

/**
 * Undoes the producer's compression, as RocketMQ's MessageDecoder does: the body is inflated and the COMPRESSED
 * bit cleared (the type bits stay, as in Java). Every type inflates on every supported Node. `describe` names the
 * message in errors. A body that does not inflate, inflates past `maxInflatedBytes`, or names a type that does not
 * exist is a ProtocolError: the record is corrupt.
 */
export function inflateBody(
  body: Buffer,
  sysFlag: number,
  maxInflatedBytes = DEFAULT_MAX_INFLATED_BYTES,
  describe = 'message',
): InflatedBody {
  const type = compressionTypeOf(sysFlag);
  if (type === undefined || body.length === 0) return { body, sysFlag };
  if (type === 'unknown') {
    const value = (sysFlag & COMPRESSION_TYPE_MASK) >> 8;
    throw new ProtocolError(`${describe}: unknown compression type ${value} in sysFlag 0x${sysFlag.toString(16)}`);
  }
  try {
    return { body: inflate(type, body, maxInflatedBytes), sysFlag: sysFlag & ~COMPRESSED_FLAG };
  } catch (error) {
    // zlib errors, RangeError (output over maxOutputLength), lz4/zstd decode errors alike: the bytes are corrupt.
    throw new ProtocolError(`${describe}: ${type} body does not inflate: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

function inflate(type: CompressionType, body: Buffer, max: number): Buffer {
  switch (type) {
    case 'ZLIB':
      return zlib.inflateSync(body, { maxOutputLength: max });
    case 'LZ4': {
      const lz4 = loadLz4();
      if (lz4 instanceof Error) throw lz4;
      return inflateLz4Frames(body, max, lz4);
    }
    case 'ZSTD':
      return zlibZstd ? zlibZstd.decompress(body, { maxOutputLength: max }) : fzstdInflate(body, max);
  }
}

/** fzstd, streamed so that a body claiming more than `max` stops there instead of allocating it. */
function fzstdInflate(body: Buffer, max: number): Buffer {
  const Decompress = loadFzstd();
  const chunks: Uint8Array[] = [];
  let length = 0;
  let ended = false;
  const stream = new Decompress((chunk, final) => {
    length += chunk.length;
    if (length > max) throw new RangeError(`it inflates past the cap of ${max} bytes`);
    chunks.push(chunk);
    if (final) ended = true;
  });
  stream.push(body, true);
  if (!ended) throw new Error('the zstd frame ends early');
  return Buffer.concat(chunks, length);
}
