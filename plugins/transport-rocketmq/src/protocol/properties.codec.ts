import { MessageValidationError } from '@mqkit/core';
import { putField } from './remoting-command';

/** Between a property's name and value (MessageDecoder.NAME_VALUE_SEPARATOR). */
export const NAME_VALUE_SEPARATOR = '\u0001';
/** After each property, the last one included (MessageDecoder.PROPERTY_SEPARATOR). */
export const PROPERTY_SEPARATOR = '\u0002';

/**
 * Parses a properties string as RocketMQ's `string2messageProperties`: split on U+0002; the key runs to the
 * first U+0001, the value is the rest (it may itself hold U+0001); entries with an empty key or value are
 * dropped; a later duplicate key wins. Never throws: every string has a reading. A `__proto__` key stays data.
 */
export function decodeProperties(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const length = text.length;
  let index = 0;
  while (index < length) {
    let end = text.indexOf(PROPERTY_SEPARATOR, index);
    if (end < 0) end = length;
    if (end - index >= 3) {
      const sep = text.indexOf(NAME_VALUE_SEPARATOR, index);
      if (sep > index && sep < end - 1) putField(out, text.slice(index, sep), text.slice(sep + 1, end));
    }
    index = end + 1;
  }
  return out;
}

/**
 * Writes properties as RocketMQ's `messageProperties2String`: `key U+0001 value U+0002` for each entry.
 * Names or values the reader would split wrongly or drop (empty, or holding a separator) are refused with a
 * MessageValidationError (rule `properties.format`), so what is sent is what the consumer reads back.
 */
export function encodeProperties(properties: Readonly<Record<string, string>>): string {
  let out = '';
  for (const key of Object.keys(properties)) {
    const value = properties[key];
    if (value === undefined) continue;
    if (key === '' || value === '') {
      throw new MessageValidationError(
        'properties.format',
        `property ${JSON.stringify(key)} has an empty name or value, which RocketMQ drops`,
      );
    }
    if (hasSeparator(key) || value.includes(PROPERTY_SEPARATOR)) {
      throw new MessageValidationError(
        'properties.format',
        `property ${JSON.stringify(key)} holds U+0001 or U+0002, RocketMQ's separators`,
      );
    }
    out += key + NAME_VALUE_SEPARATOR + value + PROPERTY_SEPARATOR;
  }
  return out;
}

function hasSeparator(s: string): boolean {
  return s.includes(NAME_VALUE_SEPARATOR) || s.includes(PROPERTY_SEPARATOR);
}
