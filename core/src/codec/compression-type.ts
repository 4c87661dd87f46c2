/**
 * RocketMQ's body compression, as MessageSysFlag and CompressionType define it since 5.0: bit 0 says the body is
 * compressed, bits 8-10 say how. A 4.x producer sets only bit 0, which means ZLIB.
 */
export type CompressionType = 'ZLIB' | 'LZ4' | 'ZSTD';

/** The sysFlag bit of a compressed body. */
export const COMPRESSED_FLAG = 0x1;
/** The sysFlag bits that hold the compression type (values 1-3; 0 from a 4.x producer). */
export const COMPRESSION_TYPE_MASK = 0x700;

const TYPE_VALUES: Readonly<Record<CompressionType, number>> = { LZ4: 1, ZSTD: 2, ZLIB: 3 };

export const COMPRESSION_TYPES: readonly CompressionType[] = ['ZLIB', 'LZ4', 'ZSTD'];

/** The sysFlag bits a producer sets for a body compressed with `type`. */
export function compressionFlags(type: CompressionType): number {
  return COMPRESSED_FLAG | (TYPE_VALUES[type] << 8);
}

/**
 * The compression of a stored body: undefined when bit 0 is clear, else its type. Types 4-7 do not exist (Java's
 * findByValue throws): the caller reports them as a corrupt record.
 */
export function compressionTypeOf(sysFlag: number): CompressionType | 'unknown' | undefined {
  if ((sysFlag & COMPRESSED_FLAG) === 0) return undefined;
  const value = (sysFlag & COMPRESSION_TYPE_MASK) >> 8;
  if (value === 0 || value === 3) return 'ZLIB';
  if (value === 1) return 'LZ4';
  if (value === 2) return 'ZSTD';
  return 'unknown';
}

/**
 * Levels each codec accepts. Java's producer passes one compressLevel (default 5, the
 * `rocketmq.message.compressLevel` system property) to whichever type it uses: java.util.zip.Deflater takes
 * -1 to 9, zstd 1 to 22 (its negative "fast" levels are left out), and LZ4's frame encoder ignores it.
 */
export const COMPRESSION_LEVELS: Readonly<Record<CompressionType, readonly [number, number]>> = {
  ZLIB: [-1, 9],
  ZSTD: [1, 22],
  LZ4: [-1, 22],
};

/** Java's default level, for every type. */
export const DEFAULT_COMPRESSION_LEVEL = 5;
