import { compressWith } from '../codec/body-codec';
import { compressionFlags, DEFAULT_COMPRESSION_LEVEL, type CompressionType } from '../codec/compression-type';

/**
 * RocketMQ's producer compression (DefaultMQProducerImpl.tryToCompressMessage): a body of at least `threshold`
 * bytes is compressed and the result used even if larger. Returns the body to send and the sysFlag bits to add:
 * COMPRESSED and the type's bits, as a 5.x producer sets them.
 */
export function compressBody(
  body: Buffer,
  threshold: number,
  type: CompressionType = 'ZLIB',
  level = DEFAULT_COMPRESSION_LEVEL,
): { body: Buffer; sysFlag: number } {
  if (body.length < threshold) return { body, sysFlag: 0 };
  return { body: compressWith(type, body, level), sysFlag: compressionFlags(type) };
}
