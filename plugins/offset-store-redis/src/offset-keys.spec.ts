import { describe, expect, it } from 'vitest';
import { offsetFieldOf, offsetKeyOf, parseStoredOffset } from './offset-keys';

describe('offset key layout', () => {
  it('puts the group in braces (the cluster hash tag) and the topic after it', () => {
    expect(offsetKeyOf('mqkit:offset:', 'order-service', 'orders')).toBe('mqkit:offset:{order-service}:orders');
    expect(offsetKeyOf('p:', 'g', '%RETRY%g')).toBe('p:{g}:%RETRY%g');
  });

  it('names a queue by broker and queue id', () => {
    expect(offsetFieldOf({ topic: 'orders', brokerName: 'broker-a', queueId: 3 })).toBe('broker-a:3');
  });

  it('reads plain non-negative decimal integers only', () => {
    expect(parseStoredOffset('0')).toBe(0);
    expect(parseStoredOffset('9007199254740991')).toBe(Number.MAX_SAFE_INTEGER);
    for (const bad of ['', '-1', '1e3', '0x10', ' 5', '5 ', '3.0', 'twelve', '9007199254740993', '12345678901234567']) {
      expect(parseStoredOffset(bad), JSON.stringify(bad)).toBeUndefined();
    }
  });
});
