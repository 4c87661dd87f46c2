import * as zlib from 'node:zlib';
import { ProtocolError } from '@mqkit/core';
import { MessageSysFlag } from './remoting-codes';

/** Default cap on an inflated body: far above RocketMQ's 4 MiB message limit, far below what a zlib bomb in a 16 MiB frame could claim. */
export const DEFAULT_MAX_INFLATED_BYTES = 64 * 1024 * 1024;

/** Compression type bits (MessageSysFlag >> 8): 0 is ZLIB too, for 4.x producers that set only COMPRESSED. */
const ZLIB_TYPES = new Set([0, 3]);
const LZ4 = 1;
const ZSTD = 2;

type ZstdSync = (buffer: Buffer, options?: { maxOutputLength?: number }) => Buffer;
/** node:zlib has zstd only from Node 22.15 / 23.8; use it where present. */
const zstdDecompressSync = (zlib as unknown as { zstdDecompressSync?: ZstdSync }).zstdDecompressSync;

/** The body as the consumer should see it, and the sysFlag to report with it. */
export interface InflatedBody {
  readonly body: Buffer;
  readonly sysFlag: number;
}

/**
 * Undoes the producer's compression, as RocketMQ's MessageDecoder does with deCompressBody: ZLIB (type 3, or 0
 * from 4.x producers) is inflated and the COMPRESSED bit cleared. LZ4, and ZSTD on a Node without zstd, cannot be
 * inflated here: the body is handed over as stored with COMPRESSED still set, so nothing is lost and the flag
 * says what happened. Types 4–7 do not exist (Java throws) and a body that does not inflate is corrupt: both are
 * ProtocolErrors.
 */
export function inflateBody(
  body: Buffer,
  sysFlag: number,
  maxInflatedBytes = DEFAULT_MAX_INFLATED_BYTES,
): InflatedBody {
  if ((sysFlag & MessageSysFlag.COMPRESSED) === 0 || body.length === 0) return { body, sysFlag };
  const type = (sysFlag & MessageSysFlag.COMPRESSION_TYPE_MASK) >> 8;
  if (ZLIB_TYPES.has(type)) {
    return {
      body: run(() => zlib.inflateSync(body, { maxOutputLength: maxInflatedBytes }), 'ZLIB'),
      sysFlag: sysFlag & ~MessageSysFlag.COMPRESSED,
    };
  }
  if (type === ZSTD && zstdDecompressSync) {
    return {
      body: run(() => zstdDecompressSync(body, { maxOutputLength: maxInflatedBytes }), 'ZSTD'),
      sysFlag: sysFlag & ~MessageSysFlag.COMPRESSED,
    };
  }
  if (type === LZ4 || type === ZSTD) return { body, sysFlag };
  throw new ProtocolError(`unknown compression type ${type} in sysFlag 0x${sysFlag.toString(16)}`);
}

/** Compresses as a 5.x Java producer does: zlib-wrapped deflate, level 5 (java.util.zip.Deflater). */
export function deflateBody(body: Buffer): Buffer {
  return zlib.deflateSync(body, { level: 5 });
}

function run(inflate: () => Buffer, name: string): Buffer {
  try {
    return inflate();
  } catch (error) {
    // zlib errors and RangeError (output over maxOutputLength) alike: the stored bytes are not a valid body.
    throw new ProtocolError(`${name} body does not inflate: ${(error as Error).message}`, { cause: error });
  }
}
