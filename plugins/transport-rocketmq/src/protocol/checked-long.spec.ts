import { describe, expect, it } from 'vitest';
import { UnsafeLongError } from '../errors/unsafe-long.error';
import { formatLong, parseLong, readSafeInt64, toSafeNumber } from './checked-long';

describe('checked 64-bit conversion', () => {
  it('converts values within ±MAX_SAFE_INTEGER', () => {
    expect(toSafeNumber(9007199254740991n, 'x')).toBe(Number.MAX_SAFE_INTEGER);
    expect(toSafeNumber(-9007199254740991n, 'x')).toBe(-Number.MAX_SAFE_INTEGER);
    const b = Buffer.alloc(8);
    b.writeBigInt64BE(123456789012345n);
    expect(readSafeInt64(b, 0, 'x')).toBe(123456789012345);
  });

  it('reads every long at the edges of the safe range exactly, and nothing beyond it', () => {
    const b = Buffer.alloc(8);
    for (const v of [
      0n,
      -1n,
      1n,
      4294967295n,
      4294967296n,
      -4294967296n,
      -4294967297n,
      9007199254740991n,
      -9007199254740991n,
      2n ** 52n + 1n,
    ]) {
      b.writeBigInt64BE(v);
      expect(readSafeInt64(b, 0, 'x')).toBe(Number(v));
    }
    for (const v of [
      9007199254740992n,
      9007199254740993n,
      -9007199254740992n,
      -9007199254740993n,
      2n ** 63n - 1n,
      -(2n ** 63n),
    ]) {
      b.writeBigInt64BE(v);
      expect(() => readSafeInt64(b, 0, 'x')).toThrow(UnsafeLongError);
    }
  });

  it('throws a typed error naming the field beyond that range', () => {
    const b = Buffer.alloc(8);
    b.writeBigInt64BE(9007199254740992n);
    expect(() => readSafeInt64(b, 0, 'queueOffset')).toThrow(UnsafeLongError);
    let caught: unknown;
    try {
      toSafeNumber(-(2n ** 63n), 'commitLogOffset');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UnsafeLongError);
    expect(caught).toMatchObject({ field: 'commitLogOffset', value: '-9223372036854775808', code: 'PROTOCOL' });
  });

  it('parses decimal text from extFields, refusing anything else', () => {
    expect(parseLong('0', 'o')).toBe(0);
    expect(parseLong('-1', 'o')).toBe(-1);
    expect(parseLong('9007199254740991', 'o')).toBe(Number.MAX_SAFE_INTEGER);
    for (const bad of ['9007199254740992', '1.5', '', ' 1', '1e3', '0x10', 'abc'])
      expect(() => parseLong(bad, 'o')).toThrow(UnsafeLongError);
  });

  it('formats only safe integers', () => {
    expect(formatLong(42, 'x')).toBe('42');
    expect(() => formatLong(1.5, 'x')).toThrow(UnsafeLongError);
    expect(() => formatLong(2 ** 53, 'x')).toThrow(UnsafeLongError);
  });
});
