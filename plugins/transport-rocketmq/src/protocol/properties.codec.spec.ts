import { MessageValidationError } from '@mqkit/core';
import { describe, expect, it } from 'vitest';
import { decodeProperties, encodeProperties } from './properties.codec';

describe('properties codec', () => {
  it('writes key U+0001 value U+0002 for each entry, the last one included', () => {
    expect(encodeProperties({ TAGS: 'A', KEYS: 'k1 k2' })).toBe('TAGS\u0001A\u0002KEYS\u0001k1 k2\u0002');
    expect(encodeProperties({})).toBe('');
  });

  it('reads what it writes', () => {
    const props = { UNIQ_KEY: '7F0000010001', TAGS: 'ü', WAIT: 'true' };
    expect(decodeProperties(encodeProperties(props))).toEqual(props);
  });

  it('reads as string2messageProperties: no trailing separator, empty parts dropped, last duplicate wins', () => {
    expect(decodeProperties('A\u0001x\u0002B\u0001y')).toEqual({ A: 'x', B: 'y' });
    expect(decodeProperties('\u0001v\u0002K\u0001\u0002\u0002\u0002C\u0001z\u0002')).toEqual({ C: 'z' });
    expect(decodeProperties('A\u00011\u0002A\u00012\u0002')).toEqual({ A: '2' });
    expect(decodeProperties('noseparator\u0002')).toEqual({});
  });

  it('keeps everything after the first U+0001 as the value', () => {
    expect(decodeProperties('K\u0001a\u0001b\u0002')).toEqual({ K: 'a\u0001b' });
  });

  it('keeps a __proto__ key as data on a plain object', () => {
    const props = decodeProperties('__proto__\u0001x\u0002TAGS\u0001t\u0002');
    expect(Object.keys(props)).toEqual(['__proto__', 'TAGS']);
    expect(Object.getPrototypeOf(props)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(props, '__proto__')?.value).toBe('x');
    expect(Object.hasOwn(props, 'TAGS')).toBe(true);
  });

  it.each([[{ '': 'v' }], [{ k: '' }], [{ 'a\u0001b': 'v' }], [{ k: 'a\u0002b' }]])(
    'refuses properties RocketMQ would read back differently: %j',
    (props) => {
      expect(() => encodeProperties(props)).toThrow(MessageValidationError);
    },
  );
});
