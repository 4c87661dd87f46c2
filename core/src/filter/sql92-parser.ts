import {
  isBooleanNode,
  showNode,
  type ComparisonOperator,
  type Sql92Node,
  type Sql92Value,
  type TextOperator,
} from './sql92-ast';
import { Sql92Error } from './sql92-error';
import { tokenize, type Keyword, type Operator, type Token } from './sql92-lexer';

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
  private readonly tokens: Token[];
  private index = 0;
  /** NOT nodes built by a prefix NOT and not wrapped in parentheses since. */
  private readonly bareNots = new Set<Sql92Node>();

  constructor(private readonly expression: string) {
    this.tokens = tokenize(expression);
  }

  parse(): Sql92Node {
    if (this.peek().kind === 'end') this.fail(this.peek(), 'the expression is empty');
    const start = this.peek();
    const node = this.or();
    const rest = this.peek();
    if (rest.kind !== 'end')
      this.fail(
        rest,
        `unexpected ${describe(rest)} after a complete expression (RocketMQ's broker would silently ignore the rest)`,
      );
    if (node.kind === 'property')
      this.fail(
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
    let start = this.peek();
    let left = operand();
    while (this.keyword(keyword)) {
      const at = this.peek();
      const right = operand();
      left = { kind, left: this.asBoolean(left, start), right: this.asBoolean(right, at) };
      start = at;
    }
    return left;
  }

  private equality(): Sql92Node {
    const start = this.peek();
    let left = this.comparison();
    for (;;) {
      const token = this.peek();
      if (this.op('=') || this.op('<>')) {
        const op = (token as { value: ComparisonOperator }).value;
        if (this.bareNots.has(left))
          this.fail(
            start,
            `NOT binds tighter than ${op}: this reads as ${showNode(left)} ${op} ..., which RocketMQ never matches; write NOT (... ${op} ...)`,
          );
        const right = this.comparison();
        this.checkEqualOperand(left, start);
        this.checkEqualOperand(right, token);
        if (left.kind === 'literal' && right.kind === 'literal' && isBooleanNode(left) && !isBooleanNode(right)) {
          this.fail(start, `'${showNode(left)}' cannot be compared with '${showNode(right)}'`);
        }
        left = { kind: 'compare', op, left, right };
      } else if (this.keyword('IS')) {
        const negated = this.keyword('NOT');
        this.expectKeyword('NULL');
        left = { kind: 'is-null', operand: left, negated };
      } else {
        return left;
      }
    }
  }

  private comparison(): Sql92Node {
    const start = this.peek();
    let left = this.unary();
    for (;;) {
      const token = this.peek();
      if (this.op('>') || this.op('>=') || this.op('<') || this.op('<=')) {
        const right = this.unary();
        left = this.lessThan((token as { value: ComparisonOperator }).value, left, right, start, token);
        continue;
      }
      const negated =
        this.peek().kind === 'keyword' &&
        (this.peek() as { value: Keyword }).value === 'NOT' &&
        this.isComparisonKeyword(this.tokens[this.index + 1]);
      if (negated) this.index++;
      const keyword = this.peek();
      if (this.keyword('CONTAINS') || this.keyword('STARTSWITH') || this.keyword('ENDSWITH')) {
        const literal = this.peek();
        if (literal.kind !== 'string')
          this.fail(
            literal,
            `${(keyword as { value: TextOperator }).value} takes a 'quoted string', not ${describe(literal)}`,
          );
        this.index++;
        left = {
          kind: 'text',
          op: (keyword as { value: TextOperator }).value,
          operand: left,
          literal: literal.value,
          negated,
        };
      } else if (this.keyword('BETWEEN')) {
        const lowAt = this.peek();
        const low = this.unary();
        this.expectKeyword('AND');
        const highAt = this.peek();
        const high = this.unary();
        if (low.kind === 'literal' && high.kind === 'literal') {
          if (low.value === null || high.value === null)
            this.fail(lowAt, 'Illegal values of between, values can not be null!');
          const l = numeric(low.value);
          const h = numeric(high.value);
          if (l !== undefined && h !== undefined && l > h)
            this.fail(
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
      } else if (this.keyword('IN')) {
        if (left.kind !== 'property') this.fail(start, `Expected a property for In expression, got: ${showNode(left)}`);
        this.expectOp('(');
        const values = new Set<string>();
        do {
          const literal = this.peek();
          if (literal.kind !== 'string')
            this.fail(
              literal,
              `IN takes 'quoted strings' only (RocketMQ compares a property's text), not ${describe(literal)}`,
            );
          this.index++;
          values.add(literal.value);
        } while (this.op(','));
        this.expectOp(')');
        left = { kind: 'in', property: left.name, values, negated };
      } else {
        if (negated) this.index--;
        return left;
      }
    }
  }

  private unary(): Sql92Node {
    const token = this.peek();
    if (this.op('+')) return this.unary();
    if (this.op('-')) return { kind: 'negate', operand: this.unary() };
    if (this.keyword('NOT')) {
      const at = this.peek();
      const node: Sql92Node = { kind: 'not', operand: this.asBoolean(this.unary(), at) };
      this.bareNots.add(node);
      return node;
    }
    this.index++;
    switch (token.kind) {
      case 'string':
        return { kind: 'literal', value: token.value };
      case 'integer':
        return { kind: 'literal', value: this.integer(token) };
      case 'float': {
        const value = Number(token.text);
        // RocketMQ's createFloat refuses anything below Double.MIN_VALUE: a zero literal.
        if (value < Number.MIN_VALUE)
          this.fail(token, `0.0 is less than 4.9E-324 (RocketMQ refuses a zero decimal literal; write 0)`);
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
          this.expectOp(')');
          this.bareNots.delete(node);
          return node;
        }
        break;
      case 'end':
        break;
    }
    return this.fail(token, `expected a value, a property or (, found ${describe(token)}`);
  }

  private integer(token: Token & { kind: 'integer' }): Sql92Value {
    const digits = token.text.replace(/[lL]$/, '');
    const value = BigInt(digits);
    if (value > LONG_MAX) this.fail(token, `${digits} is beyond a Java long`);
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
      this.fail(at, `Value '${showNode(node)}' cannot be compared.`);
  }

  private checkEqualOperand(node: Sql92Node, at: Token): void {
    if (node.kind === 'literal' && node.value === null) this.fail(at, `'NULL' cannot be compared. (use IS NULL)`);
  }

  /** Java's asBooleanExpression: a condition must be boolean; a lone property is read as a boolean cast. */
  private asBoolean(node: Sql92Node, at: Token): Sql92Node {
    if (isBooleanNode(node) || node.kind === 'property') return node;
    return this.fail(at, `Expression will not result in a boolean value: ${showNode(node)}`);
  }

  private isComparisonKeyword(token: Token | undefined): boolean {
    return token?.kind === 'keyword' && ['CONTAINS', 'STARTSWITH', 'ENDSWITH', 'BETWEEN', 'IN'].includes(token.value);
  }

  private peek(): Token {
    return this.tokens[this.index]!;
  }

  private keyword(value: Keyword): boolean {
    const token = this.peek();
    if (token.kind === 'keyword' && token.value === value) {
      this.index++;
      return true;
    }
    return false;
  }

  private op(value: Operator): boolean {
    const token = this.peek();
    if (token.kind === 'op' && token.value === value) {
      this.index++;
      return true;
    }
    return false;
  }

  private expectKeyword(value: Keyword): void {
    if (!this.keyword(value)) this.fail(this.peek(), `expected ${value}, found ${describe(this.peek())}`);
  }

  private expectOp(value: Operator): void {
    if (!this.op(value)) this.fail(this.peek(), `expected ${value}, found ${describe(this.peek())}`);
  }

  private fail(token: Token, reason: string): never {
    throw new Sql92Error(this.expression, token.at, reason);
  }
}

function numeric(value: Sql92Value): number | bigint | undefined {
  return value !== null && typeof value === 'object' ? value.value : undefined;
}

function describe(token: Token): string {
  switch (token.kind) {
    case 'end':
      return 'the end of the expression';
    case 'string':
      return `'${token.value}'`;
    case 'integer':
    case 'float':
      return token.text;
    default:
      return String(token.value);
  }
}
