import { ProtocolError } from '@mqkit/core';
import { describe, expect, it } from 'vitest';
import { runTarget } from './fuzz-target';
import { Prng } from './prng';
import { REGRESSION_CASES } from './regression-cases';

describe('fuzz regression cases', () => {
  it.each(REGRESSION_CASES.map((c) => [c.found, c] as const))(
    '%s: decodes or throws a ProtocolError',
    (_found, regression) => {
      const input = Buffer.from(regression.input, 'base64');
      // Whole input at once, and again one byte at a time for the streaming frame decoder.
      for (const rng of [new Prng(1), new Prng(2)]) {
        let thrown: unknown;
        try {
          runTarget(regression.target, input, rng);
        } catch (error) {
          thrown = error;
        }
        if (thrown !== undefined) expect(thrown).toBeInstanceOf(ProtocolError);
      }
    },
  );

  it('each case is rejected today with a ProtocolError (they are all malformed)', () => {
    for (const regression of REGRESSION_CASES) {
      expect(() => runTarget(regression.target, Buffer.from(regression.input, 'base64'), new Prng(1))).toThrow(
        ProtocolError,
      );
    }
  });
});
