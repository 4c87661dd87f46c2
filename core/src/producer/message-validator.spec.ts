import { describe, expect, it } from 'vitest';
import { MessageValidationError } from '../errors/validation.error';
import { priorityProperty } from './message-validator';

describe('priorityProperty (RocketMQ 5.4 Message.setPriority)', () => {
  it('sends an integer of at least 0 as its decimal text, and nothing when unset', () => {
    expect(priorityProperty({})).toBeUndefined();
    expect(priorityProperty({ priority: 0 })).toBe('0');
    expect(priorityProperty({ priority: 2147483647 })).toBe('2147483647');
  });

  it('refuses a negative, fractional or too large priority, naming the range', () => {
    for (const priority of [-1, 1.5, 2 ** 31, Number.NaN])
      expect(() => priorityProperty({ priority })).toThrow(/priority must be an integer from 0 to 2147483647/);
  });

  it('refuses a priority on a delayed or timed message, whose priority the broker would drop', () => {
    for (const delay of [{ delayTimeLevel: 2 }, { deliverTimeMs: 1 }, { delayTimeMs: 5 }, { delayTimeSec: 1 }]) {
      const error = (() => {
        try {
          priorityProperty({ priority: 1, ...delay });
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(MessageValidationError);
      expect((error as Error).message).toMatch(/priority cannot be combined/);
    }
    expect(priorityProperty({ priority: 1, delayTimeLevel: 0 })).toBe('1');
  });
});
