import { describe, expect, it } from 'vitest';
import { decodeMessageRecords, offsetMsgIdOf } from './message-record.decoder';
import { encodeMessageRecord } from './message-record.encoder';
import { formatSocketAddress } from './socket-address.codec';
import { MAX_ENTRIES, v4HostAt, v4HostEntries } from './v4-host-cache';

const ip = (...octets: number[]): Buffer => Buffer.from(octets);

describe('IPv4 host cache', () => {
  it('formats as formatSocketAddress and offsetMsgIdOf do, and tells hosts apart by address and by port', () => {
    for (const [address, port] of [
      [ip(127, 0, 0, 1), 10911],
      [ip(127, 0, 0, 1), 10912],
      [ip(10, 255, 0, 7), 10911],
      [ip(255, 255, 255, 255), 65535],
      [ip(0, 0, 0, 0), 0],
    ] as const) {
      const entry = v4HostAt(address, 0, port);
      expect(entry.host).toBe(formatSocketAddress(address, port));
      const portBytes = Buffer.alloc(4);
      portBytes.writeInt32BE(port);
      expect(`${entry.idPrefix}0000000000000000`).toBe(offsetMsgIdOf(address, portBytes, Buffer.alloc(8)));
    }
    expect(v4HostAt(ip(127, 0, 0, 1), 0, 10911)).toBe(v4HostAt(Buffer.from([9, 127, 0, 0, 1]), 1, 10911));
  });

  it('empties itself past its bound instead of growing', () => {
    for (let i = 0; i < MAX_ENTRIES + 10; i++) v4HostAt(ip(10, 0, (i >> 8) & 255, i & 255), 0, 1000 + (i >> 16));
    expect(v4HostEntries()).toBeLessThanOrEqual(MAX_ENTRIES);
    expect(v4HostAt(ip(10, 0, 0, 1), 0, 1000).host).toBe('10.0.0.1:1000');
  });

  it('gives every record of a pull body its own offset message id and the shared hosts', () => {
    const base = {
      topic: 'T',
      queueId: 1,
      body: Buffer.from('x'),
      properties: {},
      bornHost: '192.168.1.20:54321',
      storeHost: '127.0.0.1:10911',
      bornTimestamp: 1,
      storeTimestamp: 2,
    };
    const body = Buffer.concat([
      encodeMessageRecord({ ...base, queueOffset: 0, commitLogOffset: 123456 }),
      encodeMessageRecord({ ...base, queueOffset: 1, commitLogOffset: 123456 + 300, storeHost: '127.0.0.1:20911' }),
    ]);
    const [a, b] = decodeMessageRecords(body, { brokerName: 'b' });
    expect([a!.storeHost, b!.storeHost, a!.bornHost, b!.bornHost]).toEqual([
      '127.0.0.1:10911',
      '127.0.0.1:20911',
      '192.168.1.20:54321',
      '192.168.1.20:54321',
    ]);
    expect(a!.offsetMsgId).toBe('7F00000100002A9F000000000001E240');
    expect(b!.offsetMsgId).toBe('7F000001000051AF000000000001E36C');
  });
});
