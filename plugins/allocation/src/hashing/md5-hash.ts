import { createHash } from 'node:crypto';
import { javaUtf8Bytes } from './java-utf8';

/**
 * RocketMQ's default ring hash (ConsistentHashRouter.MD5Hash): MD5 over the key's UTF-8 bytes, the first four digest
 * bytes read as an unsigned big-endian integer. Range [0, 2^32).
 */
export function md5Hash(key: string): number {
  const digest = createHash('md5').update(javaUtf8Bytes(key)).digest();
  return digest.readUInt32BE(0);
}
