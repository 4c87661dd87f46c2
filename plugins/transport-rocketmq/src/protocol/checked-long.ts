import { UnsafeLongError } from '../errors/unsafe-long.error';

const MAX = BigInt(Number.MAX_SAFE_INTEGER);
const MIN = -MAX;

/** A bigint as a number, or an UnsafeLongError naming `field` when it is beyond ±Number.MAX_SAFE_INTEGER. */
export function toSafeNumber(value: bigint, field: string): number {
  if (value > MAX || value < MIN) throw new UnsafeLongError(field, value.toString());
  return Number(value);
}

/** Reads a big-endian int64 (Java long) at `offset` as a checked number. The caller has checked the bounds. */
export function readSafeInt64(bytes: Buffer, offset: number, field: string): number {
  return toSafeNumber(bytes.readBigInt64BE(offset), field);
}

const DECIMAL = /^-?\d{1,20}$/;

/**
 * Parses a Java long written as decimal text (how extFields carry offsets and timestamps) as a checked number.
 * Anything but an optional minus and digits, or a value beyond the safe range, is an UnsafeLongError.
 */
export function parseLong(text: string, field: string): number {
  if (!DECIMAL.test(text)) throw new UnsafeLongError(field, text);
  const n = Number(text);
  if (Number.isSafeInteger(n)) return n === 0 ? 0 : n;
  throw new UnsafeLongError(field, text);
}

/** A number as a Java long's decimal text, refusing non-integers and values beyond the safe range. */
export function formatLong(value: number, field: string): string {
  if (!Number.isSafeInteger(value)) throw new UnsafeLongError(field, String(value));
  return String(value);
}
