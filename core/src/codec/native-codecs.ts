import * as zlib from 'node:zlib';
import type { Lz4Blocks } from './lz4-frame';

/**
 * The codecs node:zlib lacks on some supported Nodes, loaded on first use so an application that never meets
 * LZ4 or ZSTD never loads them. node:zlib has zstd from Node 22.15 and 23.8; before that, fzstd (pure
 * JavaScript) inflates it and @bokuweb/zstd-wasm compresses it. LZ4's frame format comes from lz4-napi, whose
 * prebuilt binary ships in a per-platform package: on a platform without one, LZ4 bodies fail with an error that
 * says so, and everything else works.
 */

type ZstdSync = (buffer: Buffer, options?: { maxOutputLength?: number; params?: Record<number, number> }) => Buffer;
const nodeZstd = zlib as unknown as {
  zstdDecompressSync?: ZstdSync;
  zstdCompressSync?: ZstdSync;
  constants: { ZSTD_c_compressionLevel?: number };
};

/** node:zlib's zstd, where this Node has it. */
export const zlibZstd =
  nodeZstd.zstdDecompressSync && nodeZstd.zstdCompressSync && nodeZstd.constants.ZSTD_c_compressionLevel !== undefined
    ? {
        decompress: nodeZstd.zstdDecompressSync,
        compress: nodeZstd.zstdCompressSync,
        levelParam: nodeZstd.constants.ZSTD_c_compressionLevel,
      }
    : undefined;

interface Lz4Napi {
  compressSync(data: Buffer): Buffer;
  uncompressSync(data: Buffer): Buffer;
}

let lz4: Lz4Blocks | Error | undefined;

/**
 * lz4-napi's block codec, or the reason it did not load (no prebuilt binary for this platform). Its block format
 * has the inflated size in front (lz4_flex's size-prepended blocks): on the way in, the frame's block size goes
 * there as the capacity, which the codec does not exceed; on the way out it is cut off.
 */
export function loadLz4(): Lz4Blocks | Error {
  if (lz4 === undefined) {
    try {
      const napi = require('lz4-napi') as Lz4Napi;
      lz4 = {
        decompressBlock(block, capacity) {
          const prefixed = Buffer.allocUnsafe(4 + block.length);
          prefixed.writeUInt32LE(capacity, 0);
          block.copy(prefixed, 4);
          return napi.uncompressSync(prefixed);
        },
        compressBlock: (data) => napi.compressSync(data).subarray(4),
      };
    } catch (error) {
      lz4 = new Error(
        `LZ4 needs lz4-napi's prebuilt binary for ${process.platform}-${process.arch}, which did not load: ${(error as Error).message}`,
      );
    }
  }
  return lz4;
}

export interface FzstdStream {
  new (onData: (chunk: Uint8Array, final?: boolean) => unknown): { push(chunk: Uint8Array, final?: boolean): void };
}

/** fzstd's streaming decoder: streaming, so output can be counted and cut off at a cap. */
export function loadFzstd(): FzstdStream {
  return (require('fzstd') as { Decompress: FzstdStream }).Decompress;
}

interface ZstdWasm {
  init(): Promise<void>;
  compress(data: Uint8Array, level: number): Uint8Array;
}

let zstdWasm: Promise<ZstdWasm> | undefined;
let zstdWasmReady: ZstdWasm | undefined;

/** Loads the WASM zstd encoder once; resolves when {@link wasmZstdCompress} can run synchronously. */
export function prepareWasmZstd(): Promise<void> {
  zstdWasm ??= (async () => {
    const module = require('@bokuweb/zstd-wasm') as ZstdWasm;
    await module.init();
    zstdWasmReady = module;
    return module;
  })();
  return zstdWasm.then(() => undefined);
}

/** The WASM encoder, once {@link prepareWasmZstd} has resolved; undefined before. */
export function wasmZstd(): ZstdWasm | undefined {
  return zstdWasmReady;
}
