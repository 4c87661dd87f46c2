import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { descendingOrder } from './descending-order';

describe('descendingOrder', () => {
  it('orders by weight descending, ties by ascending index, over the whole 32-bit range', () => {
    expect(Array.from(descendingOrder(Uint32Array.from([5, 0xffffffff, 5, 0, 7])))).toEqual([1, 4, 0, 2, 3]);
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.nat({ max: 3 }), fc.integer({ min: 0, max: 0xffffffff })), { maxLength: 300 }),
        (values) => {
          const weights = Uint32Array.from(values);
          const expected = values.map((_, i) => i).sort((a, b) => weights[b]! - weights[a]! || a - b);
          expect(Array.from(descendingOrder(weights))).toEqual(expected);
        },
      ),
      { seed: 3, numRuns: 500 },
    );
  });
});
