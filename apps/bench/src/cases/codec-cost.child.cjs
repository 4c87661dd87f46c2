'use strict';
/**
 * mqkit's side of `npm run bench -- compression`, one compression type per process, with the built dist of
 * @mqkit/core (the codec the producer and the consumers use). Compresses the corpus at the given level, then
 * inflates the result, each over and over: first for `warmupMs` (not counted: V8 optimizes, WASM compiles), then for
 * `measureMs`. Mirrors CompressionBench.java.
 *
 * Argument: one JSON object { type, level, corpusFile, warmupMs, measureMs }.
 * Prints "RESULT {json}" with encodeMsPerMiB and decodeMsPerMiB (per MiB of the original body), the compressed size,
 * how the codec is provided on this Node, the Node version and peakRssKib.
 */
const { readFileSync } = require('node:fs');
const { peakRssKib } = require('./child-util.cjs');
const { compressWith, inflateBody, prepareCompression, compressionFlags } = require('@mqkit/core/internal');

/** Runs `step` until `ms` have passed; milliseconds per call. */
function timed(step, ms) {
  const started = performance.now();
  let calls = 0;
  let now = started;
  while (now - started < ms) {
    step();
    calls++;
    now = performance.now();
  }
  return (now - started) / calls;
}

async function main() {
  const { type, level, corpusFile, warmupMs, measureMs } = JSON.parse(process.argv[2]);
  const corpus = readFileSync(corpusFile);
  await prepareCompression(type);
  const flags = compressionFlags(type);
  const compressed = compressWith(type, corpus, level);
  const back = inflateBody(compressed, flags).body;
  if (!back.equals(corpus)) throw new Error(`${type} did not give the corpus back`);
  const encode = () => compressWith(type, corpus, level);
  const decode = () => inflateBody(compressed, flags);
  timed(encode, warmupMs);
  timed(decode, warmupMs);
  const mib = corpus.length / (1024 * 1024);
  const encodeMs = timed(encode, measureMs);
  const decodeMs = timed(decode, measureMs);
  const zlibZstd = typeof require('node:zlib').zstdCompressSync === 'function';
  const provider = { ZLIB: 'node:zlib', LZ4: 'lz4-napi', ZSTD: zlibZstd ? 'node:zlib' : 'fzstd + @bokuweb/zstd-wasm' };
  const result = {
    client: 'mqkit',
    node: process.version,
    type,
    level,
    provider: provider[type],
    corpusBytes: corpus.length,
    compressedBytes: compressed.length,
    encodeMsPerMiB: Math.round((encodeMs / mib) * 1000) / 1000,
    decodeMsPerMiB: Math.round((decodeMs / mib) * 1000) / 1000,
    peakRssKib: peakRssKib(),
  };
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
