import { describe, expect, it } from 'vitest';
import { SQL92_CASES, SQL92_SAMPLES } from '../testing/sql92-cases';
import { compileSql92 } from './sql92';
import { Sql92Error } from './sql92-error';

const propsOf = (s: (typeof SQL92_SAMPLES)[number]) => ({ ...s.properties, ...(s.tags ? { TAGS: s.tags } : {}) });

describe('compileSql92', () => {
  it.each(SQL92_CASES)('%s selects what RocketMQ selects', (expression, ids) => {
    const filter = compileSql92(expression);
    expect(SQL92_SAMPLES.filter((s) => filter.matches(propsOf(s))).map((s) => s.id)).toEqual(ids);
  });

  it("follows RocketMQ's rules for a missing property, three-valued logic and typed comparisons", () => {
    const m = (expression: string, props: Record<string, string>) => compileSql92(expression).matches(props);
    // Two missing properties are equal; one missing on the right is FALSE, so <> is TRUE.
    expect(m('a = b', {})).toBe(true);
    expect(m("'x' <> a", {})).toBe(true);
    expect(m("a <> 'x'", {})).toBe(false);
    // NOT of NULL is NULL; NOT of a lone property (read as a boolean, a string is FALSE) is TRUE when it is there.
    expect(m("NOT (a = 'x')", {})).toBe(false);
    expect(m('NOT a', { a: 'anything' })).toBe(true);
    expect(m('NOT a', {})).toBe(false);
    // The literal's type decides: an int literal reads Integer, a decimal one Double.
    expect(m('a = 5', { a: '5.0' })).toBe(false);
    expect(m('a = 5.0', { a: '5' })).toBe(true);
    expect(m('a > 5.0', { a: '5.5' })).toBe(true);
    expect(m('a > 5', { a: '5.5' })).toBe(false);
    expect(m('a = 2147483648', { a: '2147483648' })).toBe(true);
    expect(m('a = 5L', { a: '5' })).toBe(true);
    expect(m('a = 5.5', { a: ' 5.5 ' })).toBe(true);
    // Two properties are ordered as numbers; text fails the evaluation.
    expect(m('a > b', { a: '10', b: '9' })).toBe(true);
    expect(m('a > b', { a: 'b', b: 'a' })).toBe(false);
    // A Boolean literal on the left of a property fails (a ClassCastException in Java): never selected.
    expect(m('TRUE = a', { a: 'true' })).toBe(false);
    // An empty search text is FALSE, as are CONTAINS and NOT CONTAINS on a missing property.
    expect(m("a CONTAINS ''", { a: 'x' })).toBe(false);
    expect(m("a NOT CONTAINS 'x'", {})).toBe(false);
    // Keywords in any case; properties case-sensitive; comments skipped.
    expect(m("a = 'x' /* note */ and B is null -- end", { a: 'x' })).toBe(true);
    expect(m('TRUE', {})).toBe(true);
    expect(m('NULL', {})).toBe(false);
  });

  it.each([
    ['', 'the expression is empty'],
    ["a != 'x'", '"!" is not part'],
    ["a == 'x'", 'expected a value'],
    ['a = 1 b = 2', 'after a complete expression'],
    ['a = 0x10', 'after a complete expression'],
    ['a', 'alone is never TRUE'],
    ["NOT a = 'x'", 'NOT binds tighter than ='],
    ["a > 'x'", "Value ''x'' cannot be compared."],
    ['a > TRUE', "Value 'TRUE' cannot be compared."],
    ['a = NULL', "'NULL' cannot be compared."],
    ["TRUE = 'x'", "'TRUE' cannot be compared with ''x''"],
    ['a IN (1, 2)', 'IN takes'],
    ["'x' IN ('x')", 'Expected a property for In expression'],
    ['a BETWEEN 10 AND 1', 'left value(10) must less than or equal to right value(1)'],
    ['a BETWEEN NULL AND 1', 'values can not be null'],
    ['a CONTAINS b', 'CONTAINS takes'],
    ["'abc'", 'Expression will not result in a boolean value'],
    ['a = 0.0', '0.0 is less than 4.9E-324'],
    ["a = 'x", 'never closed'],
    ['a.b = 1', '"." is not part'],
    ["in = 'x'", 'expected a value'],
    ['a = 9223372036854775808', 'beyond a Java long'],
  ])('refuses %j: %s', (expression, reason) => {
    let error: unknown;
    try {
      compileSql92(expression);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(Sql92Error);
    expect((error as Sql92Error).message).toContain(reason);
  });
});
