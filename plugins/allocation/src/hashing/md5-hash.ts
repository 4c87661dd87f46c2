import { hash } from 'node:crypto';
import { javaUtf8Bytes } from './java-utf8';

// Node's UTF-8 encoder differs from Java's only on unpaired surrogates (U+FFFD versus '?').
const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * RocketMQ's default ring hash (ConsistentHashRouter.MD5Hash): MD5 over the key's UTF-8 bytes, the first four digest
 * bytes read as an unsigned big-endian integer. Range [0, 2^32).
 */
export function md5Hash(key: string): number {
  const digest = SURROGATE.test(key) ? hash('md5', javaUtf8Bytes(key), 'buffer') : hash('md5', key, 'buffer');
  return digest.readUInt32BE(0);
}
