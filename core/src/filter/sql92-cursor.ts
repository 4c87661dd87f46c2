import { Sql92Error } from './sql92-error';
import { tokenize, type Keyword, type Operator, type Token } from './sql92-lexer';

/**
 * The parser's place in an expression's tokens: it looks ahead, takes a keyword or an operator only when it is
 * next, and fails at a token with an Sql92Error that names the token's column. The last token is always `end`, so
 * looking at the current one never runs past it.
 */
export class Sql92Cursor {
  readonly #expression: string;
  readonly #tokens: Token[];
  #index = 0;

  constructor(expression: string) {
    this.#expression = expression;
    this.#tokens = tokenize(expression);
  }

  /** The current token; with `ahead`, the one that many tokens further on (undefined past the end). */
  peek(): Token;
  peek(ahead: number): Token | undefined;
  peek(ahead = 0): Token | undefined {
    return this.#tokens[this.#index + ahead];
  }

  /** Moves past the current token. */
  skip(): void {
    this.#index++;
  }

  /** Takes the keyword if it is next. */
  keyword(value: Keyword): boolean {
    const token = this.peek();
    if (token.kind === 'keyword' && token.value === value) {
      this.#index++;
      return true;
    }
    return false;
  }

  /** Takes the operator if it is next. */
  op(value: Operator): boolean {
    const token = this.peek();
    if (token.kind === 'op' && token.value === value) {
      this.#index++;
      return true;
    }
    return false;
  }

  expectKeyword(value: Keyword): void {
    if (!this.keyword(value)) this.fail(this.peek(), `expected ${value}, found ${this.describe(this.peek())}`);
  }

  expectOp(value: Operator): void {
    if (!this.op(value)) this.fail(this.peek(), `expected ${value}, found ${this.describe(this.peek())}`);
  }

  fail(token: Token, reason: string): never {
    throw new Sql92Error(this.#expression, token.at, reason);
  }

  /** A token as the errors show it: a string quoted, a number as written, the end in words. */
  describe(token: Token): string {
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
}
