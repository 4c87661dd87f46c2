import { deflateSync } from 'node:zlib';

/** MessageSysFlag bits RocketMQ's producer sets for a compressed body: COMPRESSED | ZLIB type (5.x: 0x301). */
export const SYS_FLAG_COMPRESSED = 0x1;
export const SYS_FLAG_ZLIB = 0x300;

/**
 * RocketMQ's producer compression: a body of at least `threshold` bytes is zlib-compressed (level 5) and the result
 * used even if larger. Returns the body to send and the sysFlag bits to add.
 */
export function compressBody(body: Buffer, threshold: number, level = 5): { body: Buffer; sysFlag: number } {
  if (body.length < threshold) return { body, sysFlag: 0 };
  return { body: deflateSync(body, { level }), sysFlag: SYS_FLAG_COMPRESSED | SYS_FLAG_ZLIB };
}
