import { describe, expect, it } from 'vitest';
import { decodeOffsetMsgId } from './message-id.codec';

describe('decodeOffsetMsgId', () => {
  it('reads the store host and commit-log offset of an IPv4 offset message id (MessageDecoder.createMessageId)', () => {
    // 127.0.0.1, port 10911 (0x2A9F), commit-log offset 0x1234.
    expect(decodeOffsetMsgId('7F00000100002A9F0000000000001234')).toEqual({
      address: '127.0.0.1:10911',
      commitLogOffset: 0x1234,
    });
    expect(decodeOffsetMsgId('0a000105000027110000000100000000')).toEqual({
      address: '10.0.1.5:10001',
      commitLogOffset: 2 ** 32,
    });
  });

  it('reads an IPv6 id (56 hex digits)', () => {
    const id = `${'20010db8000000000000000000000001'}00002A9F${'0000000000000010'}`;
    expect(decodeOffsetMsgId(id)).toEqual({ address: '[2001:db8::1]:10911', commitLogOffset: 16 });
  });

  it('refuses what cannot be an offset id: a UNIQ_KEY (pid and class-loader hash where the port is), other lengths, non-hex, offsets past 2^53', () => {
    // A Java UNIQ_KEY: IP 7F000001, pid 0x3039, class loader hash 0x1B6D3586, time, counter.
    expect(decodeOffsetMsgId('7F00000130391B6D358600A1B2C30001')).toBeUndefined();
    expect(decodeOffsetMsgId('7F00000100002A9F00000000000012')).toBeUndefined();
    expect(decodeOffsetMsgId('7F00000100002A9F000000000000123G')).toBeUndefined();
    expect(decodeOffsetMsgId('7F0000010000000000000000000012AB')).toBeUndefined();
    expect(decodeOffsetMsgId('7F00000100002A9F0020000000000000')).toBeUndefined();
  });
});
