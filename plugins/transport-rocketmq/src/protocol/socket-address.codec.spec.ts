import { ProtocolError } from '@mqkit/core';
import { describe, expect, it } from 'vitest';
import { formatIpv6, formatSocketAddress, parseSocketAddress } from './socket-address.codec';

const v6 = (hex: string): Buffer => Buffer.from(hex.replace(/:/g, ''), 'hex');

describe('socket address codec', () => {
  it('formats IPv4 and IPv6 hosts', () => {
    expect(formatSocketAddress(Buffer.from([127, 0, 0, 1]), 10911)).toBe('127.0.0.1:10911');
    expect(formatSocketAddress(v6('0000:0000:0000:0000:0000:0000:0000:0001'), 5)).toBe('[::1]:5');
  });

  it('shortens IPv6 as RFC 5952 says: the longest zero run, the first of equal runs, never a single group', () => {
    expect(formatIpv6(v6('2001:0db8:0000:0000:0001:0000:0000:0001'))).toBe('2001:db8::1:0:0:1');
    expect(formatIpv6(v6('2001:0db8:0000:0001:0000:0000:0000:0001'))).toBe('2001:db8:0:1::1');
    expect(formatIpv6(v6('2001:0db8:0000:0001:0001:0001:0001:0001'))).toBe('2001:db8:0:1:1:1:1:1');
    expect(formatIpv6(Buffer.alloc(16))).toBe('::');
    expect(formatIpv6(v6('fe80:0000:0000:0000:0000:0000:0000:0000'))).toBe('fe80::');
  });

  it('prints an IPv4-mapped address as IPv4, as Java does', () => {
    expect(formatSocketAddress(v6('0000:0000:0000:0000:0000:ffff:0a00:0001'), 80)).toBe('10.0.0.1:80');
  });

  it('parses both forms back to bytes', () => {
    expect(parseSocketAddress('10.1.2.3:9876')).toEqual({ ip: Buffer.from([10, 1, 2, 3]), port: 9876 });
    expect(parseSocketAddress('[2001:db8::1:0:0:1]:1')).toEqual({
      ip: v6('2001:0db8:0000:0000:0001:0000:0000:0001'),
      port: 1,
    });
    expect(parseSocketAddress('[::ffff:1.2.3.4]:1').ip).toEqual(v6('0000:0000:0000:0000:0000:ffff:0102:0304'));
    expect(parseSocketAddress('[::]:0').ip).toEqual(Buffer.alloc(16));
  });

  it.each(['localhost:1', '1.2.3.4', '1.2.3.4:', '1.2.3.4:70000', '[zz::1]:1'])('refuses %s', (text) => {
    expect(() => parseSocketAddress(text)).toThrow(ProtocolError);
  });
});
