import type { ComparisonOperator, Sql92Node, Sql92Number, Sql92Value } from './sql92-ast';

/**
 * Evaluation with the rules of RocketMQ 5.3.3's evaluator (rocketmq-filter's ComparisonExpression,
 * LogicExpression, UnaryExpression), so the embedded broker selects what a real broker selects:
 * - three-valued logic: a missing property is NULL; `a = 'x'`, `a > 1`, IN and BETWEEN on it are NULL, CONTAINS and
 *   its kin FALSE, and NOT NULL is NULL. Only TRUE selects;
 * - a property compared with a number is parsed as that number's Java type (Integer.valueOf for an int literal,
 *   Long.valueOf, Double.valueOf); text that does not parse fails the evaluation;
 * - `'x' = a` on a missing `a` is FALSE, not NULL (Java checks the left side first), and `a = b` on two missing
 *   properties is TRUE.
 * A failed evaluation throws EvaluationFailure; the broker logs it and does not deliver the message.
 */
export class EvaluationFailure extends Error {}

type Properties = Readonly<Record<string, string | undefined>>;

export function evaluateSql92(node: Sql92Node, properties: Properties): Sql92Value {
  switch (node.kind) {
    case 'literal':
      return node.value;
    case 'property':
      return properties[node.name] ?? null;
    case 'negate': {
      const value = evaluateSql92(node.operand, properties);
      return isNumber(value) ? negate(value) : null;
    }
    case 'not': {
      const value = evaluateSql92(node.operand, properties);
      return value === null ? null : !asBoolean(value);
    }
    case 'and': {
      const left = asBoolean(evaluateSql92(node.left, properties));
      if (left === false) return false;
      const right = asBoolean(evaluateSql92(node.right, properties));
      if (right === false) return false;
      return left === null || right === null ? null : true;
    }
    case 'or': {
      const left = asBoolean(evaluateSql92(node.left, properties));
      if (left === true) return true;
      const right = asBoolean(evaluateSql92(node.right, properties));
      if (right === true) return true;
      return left === null || right === null ? null : false;
    }
    case 'compare':
      return compare(node.op, evaluateSql92(node.left, properties), evaluateSql92(node.right, properties));
    case 'is-null':
      return (evaluateSql92(node.operand, properties) === null) !== node.negated;
    case 'in': {
      const value = properties[node.property];
      if (value === undefined) return null;
      return node.values.has(value) !== node.negated;
    }
    case 'text': {
      const value = evaluateSql92(node.operand, properties);
      if (typeof value !== 'string' || node.literal === '') return false;
      const found =
        node.op === 'CONTAINS'
          ? value.includes(node.literal)
          : node.op === 'STARTSWITH'
            ? value.startsWith(node.literal)
            : value.endsWith(node.literal);
      return found !== node.negated;
    }
  }
}

/**
 * A boolean operand, as Java's `(Boolean) value` cast, or its boolean cast of a lone property: a string is FALSE
 * (a property is never a Boolean), anything else is a ClassCastException.
 */
function asBoolean(value: Sql92Value): boolean | null {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'string') return false;
  throw new EvaluationFailure(`${value.value} is not a boolean`);
}

function compare(op: ComparisonOperator, left: Sql92Value, right: Sql92Value): boolean | null {
  if (op === '=' || op === '<>') {
    const equal = equals(left, right);
    return equal === null ? null : op === '=' ? equal : !equal;
  }
  if (left === null || right === null) return null;
  let order: number;
  if (typeof left === 'string' && typeof right === 'string') {
    // RocketMQ orders two properties as doubles, and refuses text.
    const l = javaDouble(left);
    const r = javaDouble(right);
    if (l === undefined || r === undefined)
      throw new EvaluationFailure(`It's illegal to compare string by '>=', '>', '<', '<='. lv=${left}, rv=${right}`);
    order = compareDoubles(l, r);
  } else {
    const converted = convert(left, right);
    if (converted === undefined) return false;
    order = compareSame(converted[0], converted[1]);
  }
  switch (op) {
    case '>':
      return order > 0;
    case '>=':
      return order >= 0;
    case '<':
      return order < 0;
    default:
      return order <= 0;
  }
}

/** Java's equality: one side NULL is NULL when it is the left, FALSE when it is the right; then equals, then compare. */
function equals(left: Sql92Value, right: Sql92Value): boolean | null {
  if ((left === null) !== (right === null)) return left === null ? null : false;
  if (left === null) return true;
  if (sameValue(left, right!)) return true;
  if (typeof left === 'string' && typeof right === 'string') return false;
  const converted = convert(left, right!);
  if (converted === undefined) return false;
  return compareSame(converted[0], converted[1]) === 0;
}

type Comparable = Exclude<Sql92Value, null>;

/** Java's equals: same class and same value (Double.equals: NaN equals NaN). */
function sameValue(left: Comparable, right: Comparable): boolean {
  if (typeof left !== 'object' || typeof right !== 'object') return left === right;
  return (
    left.type === right.type &&
    (left.value === right.value ||
      (left.type === 'double' && Number.isNaN(left.value) && Number.isNaN(right.value as number)))
  );
}

/**
 * Brings two values to one Java class as ComparisonExpression.compare does: numbers widen (int -> long ->
 * double), a string beside a number or a boolean is parsed as that type. Undefined: the classes cannot meet
 * (FALSE). A string that does not parse throws, as Java's NumberFormatException does.
 */
function convert(left: Comparable, right: Comparable): [Comparable, Comparable] | undefined {
  if (typeof left === 'boolean') {
    if (typeof right === 'boolean') return [left, right];
    // Java's Boolean-on-the-left branch casts the left operand to String: a ClassCastException.
    if (typeof right === 'string')
      throw new EvaluationFailure('java.lang.ClassCastException: Boolean cannot be cast to String');
    return undefined;
  }
  if (typeof left === 'string') {
    if (typeof right === 'boolean') return [javaBoolean(left), right];
    if (typeof right === 'string') return [left, right];
    return [parseAs(right.type, left), right];
  }
  if (typeof right === 'boolean') return undefined;
  if (typeof right === 'string') return [left, parseAs(left.type, right)];
  return widen(left, right);
}

function widen(left: Sql92Number, right: Sql92Number): [Sql92Number, Sql92Number] {
  if (left.type === right.type) return [left, right];
  if (left.type === 'double' || right.type === 'double') return [toDouble(left), toDouble(right)];
  return [toLong(left), toLong(right)];
}

function compareSame(left: Comparable, right: Comparable): number {
  if (typeof left === 'string' && typeof right === 'string') return left < right ? -1 : left > right ? 1 : 0;
  if (typeof left === 'boolean' && typeof right === 'boolean') return Number(left) - Number(right);
  const l = left as Sql92Number;
  const r = right as Sql92Number;
  if (l.type === 'double' || r.type === 'double') return compareDoubles(Number(l.value), Number(r.value));
  return l.value < r.value ? -1 : l.value > r.value ? 1 : 0;
}

/** Java's Double.compare: NaN above everything, -0.0 below 0.0. */
function compareDoubles(l: number, r: number): number {
  if (l < r) return -1;
  if (l > r) return 1;
  const lb = Number.isNaN(l) ? 2 : Object.is(l, -0) ? -1 : 0;
  const rb = Number.isNaN(r) ? 2 : Object.is(r, -0) ? -1 : 0;
  return Math.sign(lb - rb);
}

function parseAs(type: Sql92Number['type'], text: string): Sql92Number {
  if (type === 'double') {
    const value = javaDouble(text);
    if (value === undefined)
      throw new EvaluationFailure(`java.lang.NumberFormatException: For input string: "${text}"`);
    return { type, value };
  }
  if (!/^[+-]?[0-9]+$/.test(text))
    throw new EvaluationFailure(`java.lang.NumberFormatException: For input string: "${text}"`);
  const value = BigInt(text);
  const [min, max] = type === 'int' ? [-(2n ** 31n), 2n ** 31n - 1n] : [-(2n ** 63n), 2n ** 63n - 1n];
  if (value < min || value > max)
    throw new EvaluationFailure(`java.lang.NumberFormatException: For input string: "${text}"`);
  return type === 'int' ? { type, value: Number(value) } : { type, value };
}

const JAVA_DOUBLE = /^[+-]?(?:NaN|Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fFdD]?)$/;

/** Java's Double.valueOf: surrounding whitespace trimmed, an f/d suffix allowed (hex floats left out). */
function javaDouble(text: string): number | undefined {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: Java's String.trim strips every char up to U+0020, control characters included
  const trimmed = text.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '');
  if (!JAVA_DOUBLE.test(trimmed)) return undefined;
  return Number(trimmed.replace(/[fFdD]$/, ''));
}

/** Java's Boolean.valueOf: "true" in any case is TRUE, anything else FALSE. */
function javaBoolean(text: string): boolean {
  return text.toLowerCase() === 'true';
}

function isNumber(value: Sql92Value): value is Sql92Number {
  return value !== null && typeof value === 'object';
}

function negate(value: Sql92Number): Sql92Number {
  if (value.type === 'long') return { type: 'long', value: -value.value };
  return { type: value.type, value: -value.value };
}

function toDouble(value: Sql92Number): Sql92Number {
  return { type: 'double', value: Number(value.value) };
}

function toLong(value: Sql92Number): Sql92Number {
  return value.type === 'long' ? value : { type: 'long', value: BigInt(value.value) };
}
