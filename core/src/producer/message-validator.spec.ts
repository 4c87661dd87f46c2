import { describe, expect, it } from 'vitest';
import { MessageValidationError } from '../errors/validation.error';
import { liteTopicProperty, priorityProperty } from './message-validator';

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

describe('liteTopicProperty (RocketMQ 5.5 lite topics)', () => {
  it('sends the lite topic as given, and nothing without one', () => {
    expect(liteTopicProperty({})).toBeUndefined();
    expect(liteTopicProperty({ liteTopic: 'order-42' })).toBe('order-42');
  });

  it('refuses a lite topic the broker would join into another queue name, or an empty or too long one', () => {
    for (const liteTopic of ['', 'a$b', 'a b', 'x'.repeat(128)])
      expect(() => liteTopicProperty({ liteTopic })).toThrow(/liteTopic must be 1 to 127 characters/);
  });

  it('refuses a lite topic with a delay, a timer or a priority: one message type per message', () => {
    for (const other of [{ delayTimeLevel: 2 }, { delayTimeSec: 5 }, { deliverTimeMs: 1 }, { priority: 1 }])
      expect(() => liteTopicProperty({ liteTopic: 'a', ...other })).toThrow(
        expect.objectContaining({ name: 'MessageValidationError', rule: 'liteTopic.combined' }),
      );
  });
});
