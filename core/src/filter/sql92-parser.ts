import {
  isBooleanNode,
  showNode,
  type ComparisonOperator,
  type Sql92Node,
  type Sql92Value,
  type TextOperator,
} from './sql92-ast';
import { Sql92Cursor } from './sql92-cursor';
import type { Keyword, Token } from './sql92-lexer';

const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;
const LONG_MAX = 2n ** 63n - 1n;

/**
 * Parses an SQL92 selector with the grammar and the compile-time checks of RocketMQ 5.3.3's SelectorParser:
 *
 *   or       := and (OR and)*
 *   and      := equality (AND equality)*
 *   equality := compare ((= | <>) compare | IS [NOT] NULL)*
 *   compare  := unary ((> | >= | < | <=) unary | [NOT] (CONTAINS | STARTSWITH | ENDSWITH) 'text'
 *               | [NOT] BETWEEN unary AND unary | [NOT] IN ('s', ...))*
 *   unary    := + unary | - unary | NOT unary | literal | property | ( or )
 *
 * Where RocketMQ accepts an expression that can never select a message, this parser refuses it, naming why:
 * text after a complete expression (the broker ignores it: `a = 1 b = 2` selects by `a = 1`), a lone property
 * (a string is never TRUE) and `NOT a = 'x'` (NOT binds tighter: `(NOT a) = 'x'` fails on every message).
 */
export function parseSql92(expression: string): Sql92Node {
  return new Parser(expression).parse();
}

class Parser {
  readonly #tokens: Sql92Cursor;
  /** NOT nodes built by a prefix NOT and not wrapped in parentheses since. */
  readonly #bareNots = new Set<Sql92Node>();

  constructor(expression: string) {
    this.#tokens = new Sql92Cursor(expression);
  }

  parse(): Sql92Node {
    if (this.#tokens.peek().kind === 'end') this.#tokens.fail(this.#tokens.peek(), 'the expression is empty');
    const start = this.#tokens.peek();
    const node = this.or();
    const rest = this.#tokens.peek();
    if (rest.kind !== 'end')
      this.#tokens.fail(
        rest,
        `unexpected ${this.#tokens.describe(rest)} after a complete expression (RocketMQ's broker would silently ignore the rest)`,
      );
    if (node.kind === 'property')
      this.#tokens.fail(
        start,
        `the property ${node.name} alone is never TRUE (a property is a string); compare it, e.g. ${node.name} = 'true'`,
      );
    return this.asBoolean(node, start);
  }

  private or(): Sql92Node {
    return this.logic('or', 'OR', () => this.and());
  }

  private and(): Sql92Node {
    return this.logic('and', 'AND', () => this.equality());
  }

  /** A left-associative chain of AND or OR, each operand a condition. */
  private logic(kind: 'and' | 'or', keyword: 'AND' | 'OR', operand: () => Sql92Node): Sql92Node {
    let start = this.#tokens.peek();
    let left = operand();
    while (this.#tokens.keyword(keyword)) {
      const at = this.#tokens.peek();
      const right = operand();
      left = { kind, left: this.asBoolean(left, start), right: this.asBoolean(right, at) };
      start = at;
    }
    return left;
  }

  private equality(): Sql92Node {
    const start = this.#tokens.peek();
    let left = this.comparison();
    for (;;) {
      const token = this.#tokens.peek();
      if (this.#tokens.op('=') || this.#tokens.op('<>')) {
        const op = (token as { value: ComparisonOperator }).value;
        if (this.#bareNots.has(left))
          this.#tokens.fail(
            start,
            `NOT binds tighter than ${op}: this reads as ${showNode(left)} ${op} ..., which RocketMQ never matches; write NOT (... ${op} ...)`,
          );
        const right = this.comparison();
        this.checkEqualOperand(left, start);
        this.checkEqualOperand(right, token);
        if (left.kind === 'literal' && right.kind === 'literal' && isBooleanNode(left) && !isBooleanNode(right)) {
          this.#tokens.fail(start, `'${showNode(left)}' cannot be compared with '${showNode(right)}'`);
        }
        left = { kind: 'compare', op, left, right };
      } else if (this.#tokens.keyword('IS')) {
        const negated = this.#tokens.keyword('NOT');
        this.#tokens.expectKeyword('NULL');
        left = { kind: 'is-null', operand: left, negated };
      } else {
        return left;
      }
    }
  }

  private comparison(): Sql92Node {
    const start = this.#tokens.peek();
    let left = this.unary();
    for (;;) {
      const token = this.#tokens.peek();
      if (this.#tokens.op('>') || this.#tokens.op('>=') || this.#tokens.op('<') || this.#tokens.op('<=')) {
        const right = this.unary();
        left = this.lessThan((token as { value: ComparisonOperator }).value, left, right, start, token);
        continue;
      }
      // NOT right before one of these keywords negates that comparison, which a branch below then always takes;
      // any other NOT is a prefix NOT, left for the caller.
      const negated =
        this.#tokens.peek().kind === 'keyword' &&
        (this.#tokens.peek() as { value: Keyword }).value === 'NOT' &&
        this.isComparisonKeyword(this.#tokens.peek(1));
      if (negated) this.#tokens.skip();
      const keyword = this.#tokens.peek();
      if (this.#tokens.keyword('CONTAINS') || this.#tokens.keyword('STARTSWITH') || this.#tokens.keyword('ENDSWITH')) {
        const literal = this.#tokens.peek();
        if (literal.kind !== 'string')
          this.#tokens.fail(
            literal,
            `${(keyword as { value: TextOperator }).value} takes a 'quoted string', not ${this.#tokens.describe(literal)}`,
          );
        this.#tokens.skip();
        left = {
          kind: 'text',
          op: (keyword as { value: TextOperator }).value,
          operand: left,
          literal: literal.value,
          negated,
        };
      } else if (this.#tokens.keyword('BETWEEN')) {
        const lowAt = this.#tokens.peek();
        const low = this.unary();
        this.#tokens.expectKeyword('AND');
        const highAt = this.#tokens.peek();
        const high = this.unary();
        if (low.kind === 'literal' && high.kind === 'literal') {
          if (low.value === null || high.value === null)
            this.#tokens.fail(lowAt, 'Illegal values of between, values can not be null!');
          const l = numeric(low.value);
          const h = numeric(high.value);
          if (l !== undefined && h !== undefined && l > h)
            this.#tokens.fail(
              lowAt,
              `Illegal values of between, left value(${showNode(low)}) must less than or equal to right value(${showNode(high)})`,
            );
        }
        left = negated
          ? {
              kind: 'or',
              left: this.lessThan('<', left, low, start, lowAt),
              right: this.lessThan('>', left, high, start, highAt),
            }
          : {
              kind: 'and',
              left: this.lessThan('>=', left, low, start, lowAt),
              right: this.lessThan('<=', left, high, start, highAt),
            };
      } else if (this.#tokens.keyword('IN')) {
        if (left.kind !== 'property')
          this.#tokens.fail(start, `Expected a property for In expression, got: ${showNode(left)}`);
        this.#tokens.expectOp('(');
        const values = new Set<string>();
        do {
          const literal = this.#tokens.peek();
          if (literal.kind !== 'string')
            this.#tokens.fail(
              literal,
              `IN takes 'quoted strings' only (RocketMQ compares a property's text), not ${this.#tokens.describe(literal)}`,
            );
          this.#tokens.skip();
          values.add(literal.value);
        } while (this.#tokens.op(','));
        this.#tokens.expectOp(')');
        left = { kind: 'in', property: left.name, values, negated };
      } else {
        return left;
      }
    }
  }

  private unary(): Sql92Node {
    const token = this.#tokens.peek();
    if (this.#tokens.op('+')) return this.unary();
    if (this.#tokens.op('-')) return { kind: 'negate', operand: this.unary() };
    if (this.#tokens.keyword('NOT')) {
      const at = this.#tokens.peek();
      const node: Sql92Node = { kind: 'not', operand: this.asBoolean(this.unary(), at) };
      this.#bareNots.add(node);
      return node;
    }
    this.#tokens.skip();
    switch (token.kind) {
      case 'string':
        return { kind: 'literal', value: token.value };
      case 'integer':
        return { kind: 'literal', value: this.integer(token) };
      case 'float': {
        const value = Number(token.text);
        // RocketMQ's createFloat refuses anything below Double.MIN_VALUE: a zero literal.
        if (value < Number.MIN_VALUE)
          this.#tokens.fail(token, `0.0 is less than 4.9E-324 (RocketMQ refuses a zero decimal literal; write 0)`);
        return { kind: 'literal', value: { type: 'double', value } };
      }
      case 'id':
        return { kind: 'property', name: token.value };
      case 'keyword':
        if (token.value === 'TRUE' || token.value === 'FALSE')
          return { kind: 'literal', value: token.value === 'TRUE' };
        if (token.value === 'NULL') return { kind: 'literal', value: null };
        break;
      case 'op':
        if (token.value === '(') {
          const node = this.or();
          this.#tokens.expectOp(')');
          this.#bareNots.delete(node);
          return node;
        }
        break;
      case 'end':
        break;
    }
    return this.#tokens.fail(token, `expected a value, a property or (, found ${this.#tokens.describe(token)}`);
  }

  private integer(token: Token & { kind: 'integer' }): Sql92Value {
    const digits = token.text.replace(/[lL]$/, '');
    const value = BigInt(digits);
    if (value > LONG_MAX) this.#tokens.fail(token, `${digits} is beyond a Java long`);
    const n = Number(value);
    return n >= INT_MIN && n <= INT_MAX ? { type: 'int', value: n } : { type: 'long', value };
  }

  private lessThan(
    op: ComparisonOperator,
    left: Sql92Node,
    right: Sql92Node,
    leftAt: Token,
    rightAt: Token,
  ): Sql92Node {
    this.checkLessThanOperand(left, leftAt);
    this.checkLessThanOperand(right, rightAt);
    return { kind: 'compare', op, left, right };
  }

  /** Java's checkLessThanOperand: only numbers, properties and arithmetic can be ordered. */
  private checkLessThanOperand(node: Sql92Node, at: Token): void {
    if ((node.kind === 'literal' && numeric(node.value) === undefined) || isBooleanNode(node))
      this.#tokens.fail(at, `Value '${showNode(node)}' cannot be compared.`);
  }

  private checkEqualOperand(node: Sql92Node, at: Token): void {
    if (node.kind === 'literal' && node.value === null)
      this.#tokens.fail(at, `'NULL' cannot be compared. (use IS NULL)`);
  }

  /** Java's asBooleanExpression: a condition must be boolean; a lone property is read as a boolean cast. */
  private asBoolean(node: Sql92Node, at: Token): Sql92Node {
    if (isBooleanNode(node) || node.kind === 'property') return node;
    return this.#tokens.fail(at, `Expression will not result in a boolean value: ${showNode(node)}`);
  }

  private isComparisonKeyword(token: Token | undefined): boolean {
    return token?.kind === 'keyword' && ['CONTAINS', 'STARTSWITH', 'ENDSWITH', 'BETWEEN', 'IN'].includes(token.value);
  }
}

function numeric(value: Sql92Value): number | bigint | undefined {
  return value !== null && typeof value === 'object' ? value.value : undefined;
}
