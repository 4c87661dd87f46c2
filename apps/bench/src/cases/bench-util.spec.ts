import { describe, expect, it } from 'vitest';
import { flag, median, peakRssMb } from './bench-util';

describe('bench utilities', () => {
  it('median of odd and even counts', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
  it('flags', () => {
    expect(flag(['--messages', '5'], 'messages', 1)).toBe(5);
    expect(flag([], 'messages', 7)).toBe(7);
    expect(() => flag(['--messages', 'x'], 'messages', 1)).toThrow(/positive number/);
  });
  it('reads the peak RSS', () => {
    expect(peakRssMb()).toBeGreaterThan(10);
  });
});
