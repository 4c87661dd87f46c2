import { ProtocolError } from '@mqkit/core';

/** A value read by {@link parseFastJson}. */
export type FastJsonValue = null | boolean | number | bigint | string | FastJsonValue[] | FastJsonObject | FastJsonMap;
/** An object whose keys are all strings, numbers or bare names (prototype-free). */
export interface FastJsonObject {
  [key: string]: FastJsonValue;
}
/** An object with at least one object- or array-typed key, e.g. fastjson's `{{"topic":"t",...}:5}`. */
export type FastJsonMap = Map<FastJsonValue, FastJsonValue>;

/** Nesting deeper than this is refused, so hostile input cannot overflow the stack. */
export const FASTJSON_MAX_DEPTH = 256;

/**
 * Parses the JSON that RocketMQ's fastjson writes, which is not always JSON:
 * - map keys may be bare numbers (`{0:"127.0.0.1:10911"}`, route data from a name server answering old
 *   clients) or whole objects (`{{"brokerName":"b","queueId":0,"topic":"t"}:5}`, ResetOffsetBody's offsetTable,
 *   ConsumerRunningInfo's mqTable);
 * - longs beyond 2^53 are written as bare numbers.
 * Standard JSON parses as usual. Objects with an object or array key become a Map (keys as parsed values);
 * others become prototype-free objects. Integers beyond ±2^53 become bigint, so no offset is silently rounded.
 * Bare-name keys and single-quoted strings (fastjson options some senders use) are accepted too. Anything else
 * is a ProtocolError with the position.
 */
export function parseFastJson(text: string): FastJsonValue {
  const parser = new Parser(text);
  parser.skipSpace();
  const value = parser.value(0);
  parser.skipSpace();
  if (parser.at < text.length) parser.fail('unexpected text after the value');
  return value;
}

/** Parses a UTF-8 body with {@link parseFastJson}. */
export function parseFastJsonBody(body: Buffer): FastJsonValue {
  return parseFastJson(body.toString('utf8'));
}

/** The entries of a parsed object, whichever form it took; [] for anything that is not an object. */
export function fastJsonEntries(value: FastJsonValue | undefined): Array<[FastJsonValue, FastJsonValue]> {
  if (value instanceof Map) return [...value.entries()];
  if (isFastJsonObject(value)) return Object.keys(value).map((k) => [k, value[k]!]);
  return [];
}

/** True for a plain (string-keyed) parsed object. */
export function isFastJsonObject(value: FastJsonValue | undefined): value is FastJsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Map);
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const NAME = /[A-Za-z_$][\w$]*/y;
const SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

class Parser {
  at = 0;
  constructor(private readonly text: string) {}

  fail(message: string): never {
    throw new ProtocolError(`fastjson body: ${message} at ${this.at}`);
  }

  skipSpace(): void {
    while (this.at < this.text.length && SPACE.has(this.text.charCodeAt(this.at))) this.at++;
  }

  value(depth: number): FastJsonValue {
    if (depth > FASTJSON_MAX_DEPTH) this.fail(`nesting deeper than ${FASTJSON_MAX_DEPTH}`);
    const c = this.text[this.at];
    if (c === '{') return this.object(depth + 1);
    if (c === '[') return this.array(depth + 1);
    if (c === '"' || c === "'") return this.string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
    if (this.text.startsWith('true', this.at)) return this.literal(4, true);
    if (this.text.startsWith('false', this.at)) return this.literal(5, false);
    if (this.text.startsWith('null', this.at)) return this.literal(4, null);
    return this.fail(c === undefined ? 'unexpected end' : `unexpected ${JSON.stringify(c)}`);
  }

  private literal<T>(length: number, value: T): T {
    this.at += length;
    return value;
  }

  private array(depth: number): FastJsonValue[] {
    this.at++;
    const out: FastJsonValue[] = [];
    this.skipSpace();
    if (this.text[this.at] === ']') {
      this.at++;
      return out;
    }
    for (;;) {
      this.skipSpace();
      out.push(this.value(depth));
      this.skipSpace();
      const c = this.text[this.at++];
      if (c === ']') return out;
      if (c !== ',') {
        this.at--;
        this.fail('expected , or ]');
      }
    }
  }

  private object(depth: number): FastJsonObject | FastJsonMap {
    this.at++;
    const entries: Array<[FastJsonValue, FastJsonValue]> = [];
    let plain = true;
    this.skipSpace();
    if (this.text[this.at] === '}') {
      this.at++;
      return Object.create(null) as FastJsonObject;
    }
    for (;;) {
      this.skipSpace();
      const key = this.key(depth);
      if (typeof key === 'object' && key !== null) plain = false;
      this.skipSpace();
      if (this.text[this.at] !== ':') this.fail('expected :');
      this.at++;
      this.skipSpace();
      entries.push([key, this.value(depth)]);
      this.skipSpace();
      const c = this.text[this.at++];
      if (c === '}') break;
      if (c !== ',') {
        this.at--;
        this.fail('expected , or }');
      }
    }
    if (!plain) return new Map(entries);
    const out = Object.create(null) as FastJsonObject;
    for (const [k, v] of entries) out[String(k)] = v;
    return out;
  }

  /** A key: a string, a number (its source text), a bare name, or an object/array (fastjson's object keys). */
  private key(depth: number): FastJsonValue {
    const c = this.text[this.at];
    if (c === '{' || c === '[') return this.value(depth);
    if (c === '"' || c === "'") return this.string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.match(NUMBER, 'a number key');
    return this.match(NAME, 'a key');
  }

  private match(pattern: RegExp, what: string): string {
    pattern.lastIndex = this.at;
    const m = pattern.exec(this.text);
    if (m === null) return this.fail(`expected ${what}`);
    this.at += m[0].length;
    return m[0];
  }

  private number(): number | bigint {
    const text = this.match(NUMBER, 'a number');
    const n = Number(text);
    if (Number.isSafeInteger(n) || !/^-?\d+$/.test(text)) return n === 0 ? 0 : n;
    return BigInt(text);
  }

  private string(): string {
    const quote = this.text[this.at++];
    let out = '';
    let from = this.at;
    for (;;) {
      if (this.at >= this.text.length) this.fail('unterminated string');
      const c = this.text[this.at]!;
      if (c === quote) {
        out += this.text.slice(from, this.at++);
        return out;
      }
      if (c !== '\\') {
        this.at++;
        continue;
      }
      out += this.text.slice(from, this.at);
      const e = this.text[this.at + 1];
      this.at += 2;
      switch (e) {
        case '"':
        case "'":
        case '\\':
        case '/':
          out += e;
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          const hex = this.text.slice(this.at, this.at + 4);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('bad \\u escape');
          out += String.fromCharCode(parseInt(hex, 16));
          this.at += 4;
          break;
        }
        default:
          this.at -= 2;
          this.fail(`bad escape \\${e ?? ''}`);
      }
      from = this.at;
    }
  }
}
