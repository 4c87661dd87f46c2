import { describe, expect, it } from 'vitest';
import { javaStringHashCode } from '../util/java-hash';
import { parseSubscription, tagMatches } from './subscription';

describe('Java String.hashCode (the broker filters tags by it)', () => {
  it.each([
    ['TagA', 2598919],
    ['*', 42],
    ['hello world', 1794106052],
    ['polygenelubricants', -2147483648],
    ['中文', 646394],
    ['😀', 1772899],
    ['', 0],
  ])('%s -> %i', (s, h) => expect(javaStringHashCode(s)).toBe(h));
});

describe('TAG subscription expressions (FilterAPI)', () => {
  it('"*", empty and undefined match everything', () => {
    for (const e of ['*', '', undefined, '  ']) {
      const sub = parseSubscription('T', e);
      expect(sub.expression).toBe('*');
      expect(sub.tags.size).toBe(0);
      expect(tagMatches(sub, undefined)).toBe(true);
    }
  });

  it('splits on ||, trims, drops empty parts, matches exactly and case-sensitively', () => {
    const sub = parseSubscription('T', ' created ||paid|| || ');
    expect([...sub.tags]).toEqual(['created', 'paid']);
    expect([...sub.codes]).toEqual([javaStringHashCode('created'), javaStringHashCode('paid')]);
    expect(tagMatches(sub, 'paid')).toBe(true);
    expect(tagMatches(sub, 'Paid')).toBe(false);
    expect(tagMatches(sub, undefined)).toBe(false);
  });
});
