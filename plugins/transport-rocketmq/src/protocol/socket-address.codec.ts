import { isIPv4, isIPv6 } from 'node:net';
import { ProtocolError } from '@mqkit/core';

/** A host as stored in a message record: the raw IP bytes (4 or 16) and the port. */
export interface RawSocketAddress {
  readonly ip: Buffer;
  readonly port: number;
}

/**
 * Formats a stored host as `a.b.c.d:port`, or `[v6]:port` with the RFC 5952 short form. An IPv4-mapped IPv6
 * address (::ffff:a.b.c.d) prints as IPv4, because Java's InetAddress.getByAddress turns it into an Inet4Address.
 */
export function formatSocketAddress(ip: Buffer, port: number): string {
  if (ip.length === 4) return `${ip[0]}.${ip[1]}.${ip[2]}.${ip[3]}:${port}`;
  if (isV4Mapped(ip)) return `${ip[12]}.${ip[13]}.${ip[14]}.${ip[15]}:${port}`;
  return `[${formatIpv6(ip)}]:${port}`;
}

/** True for ::ffff:a.b.c.d, which Java treats as the IPv4 address a.b.c.d. */
export function isV4Mapped(ip: Buffer): boolean {
  if (ip.length !== 16 || ip[10] !== 0xff || ip[11] !== 0xff) return false;
  for (let i = 0; i < 10; i++) if (ip[i] !== 0) return false;
  return true;
}

/** RFC 5952: lowercase hex groups without leading zeros; the longest run (≥ 2) of zero groups becomes `::`. */
export function formatIpv6(ip: Buffer): string {
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(ip.readUInt16BE(i));
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = (from: number, to: number): string =>
    groups
      .slice(from, to)
      .map((g) => g.toString(16))
      .join(':');
  if (bestStart < 0) return hex(0, 8);
  return `${hex(0, bestStart)}::${hex(bestStart + bestLength, 8)}`;
}

/**
 * Parses `a.b.c.d:port` or `[v6]:port` into raw bytes, for encoding records and offset message ids. Anything else
 * is a ProtocolError.
 */
export function parseSocketAddress(text: string): RawSocketAddress {
  const colon = text.lastIndexOf(':');
  if (colon < 0) throw new ProtocolError(`not a host:port address: ${text}`);
  let host = text.slice(0, colon);
  const port = Number(text.slice(colon + 1));
  if (!Number.isInteger(port) || port < 0 || port > 65535 || text.slice(colon + 1) === '') {
    throw new ProtocolError(`bad port in address: ${text}`);
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (isIPv4(host)) return { ip: Buffer.from(host.split('.').map(Number)), port };
  if (isIPv6(host)) return { ip: ipv6Bytes(host), port };
  throw new ProtocolError(`not an IP address: ${text}`);
}

function ipv6Bytes(host: string): Buffer {
  let text = host;
  const out = Buffer.alloc(16);
  // An embedded IPv4 tail (::ffff:1.2.3.4) fills the last two groups.
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const parts = tail.split('.').map(Number);
    text = `${text.slice(0, lastColon + 1)}${((parts[0]! << 8) | parts[1]!).toString(16)}:${((parts[2]! << 8) | parts[3]!).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const restGroups = rest === undefined || rest === '' ? [] : rest.split(':');
  const zeros = 8 - headGroups.length - restGroups.length;
  const groups = [...headGroups, ...Array<string>(rest === undefined ? 0 : zeros).fill('0'), ...restGroups];
  for (const [i, g] of groups.entries()) out.writeUInt16BE(parseInt(g, 16), i * 2);
  return out;
}
