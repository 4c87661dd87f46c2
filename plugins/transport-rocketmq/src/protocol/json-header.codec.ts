import { ProtocolError } from '@mqkit/core';
import { emptyFields, putField } from './remoting-command';

/** The header part of a RemotingCommand, as both header encodings carry it. */
export interface CommandHeader {
  readonly code: number;
  readonly language: string | undefined;
  readonly version: number;
  readonly opaque: number;
  readonly flag: number;
  readonly remark: string | undefined;
  readonly extFields: Readonly<Record<string, string>>;
}

/**
 * The JSON header (serialize type 0), as fastjson writes RocketMQ's RemotingCommand: keys in alphabetical order,
 * nulls left out, so a request is byte for byte what the Java client sends. `serializeTypeCurrentRPC` is written
 * because the Java client writes it, and ignored on read.
 */
export function encodeJsonHeader(header: CommandHeader): Buffer {
  return Buffer.from(jsonHeaderText(header), 'utf8');
}

/** The JSON header's text (what {@link encodeJsonHeader} encodes), for a frame that writes it in place. */
export function jsonHeaderText(header: CommandHeader): string {
  const json: Record<string, unknown> = {
    code: header.code,
    extFields: header.extFields,
    flag: header.flag,
    language: header.language ?? 'JAVA',
    opaque: header.opaque,
  };
  if (header.remark !== undefined) json.remark = header.remark;
  json.serializeTypeCurrentRPC = 'JSON';
  json.version = header.version;
  return JSON.stringify(json);
}

/**
 * Reads a JSON header. Headers are written by fastjson from a typed class, so they are standard JSON; anything
 * that is not an object with int32 `code` and `opaque` is a ProtocolError. extFields values that arrive as
 * numbers or booleans (some non-Java senders) become strings, as fastjson would make them.
 */
export function decodeJsonHeader(bytes: Buffer): CommandHeader {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new ProtocolError(`JSON header is not valid JSON (${bytes.length} bytes)`, { cause: error });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ProtocolError('JSON header is not an object');
  }
  const o = parsed as Record<string, unknown>;
  return {
    code: int32Field(o, 'code', true),
    language: optionalString(o, 'language'),
    version: int32Field(o, 'version', false),
    opaque: int32Field(o, 'opaque', true),
    flag: int32Field(o, 'flag', false),
    remark: optionalString(o, 'remark'),
    extFields: extFieldsOf(o.extFields),
  };
}

function int32Field(o: Record<string, unknown>, key: string, required: boolean): number {
  const value = o[key];
  if (value === undefined || value === null) {
    if (required) throw new ProtocolError(`JSON header has no ${key}`);
    return 0;
  }
  if (typeof value !== 'number' || !Number.isInteger(value) || value < -0x80000000 || value > 0x7fffffff) {
    throw new ProtocolError(`JSON header ${key} is not an int32: ${describe(value)}`);
  }
  return value;
}

function optionalString(o: Record<string, unknown>, key: string): string | undefined {
  const value = o[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new ProtocolError(`JSON header ${key} is not a string: ${describe(value)}`);
  return value;
}

function extFieldsOf(value: unknown): Record<string, string> {
  const out = emptyFields();
  if (value === undefined || value === null) return out;
  if (typeof value !== 'object' || Array.isArray(value))
    throw new ProtocolError(`JSON header extFields is not an object: ${describe(value)}`);
  const fields = value as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    const v = fields[key];
    if (v === null || v === undefined) continue;
    if (typeof v === 'string') putField(out, key, v);
    else if (typeof v === 'number' || typeof v === 'boolean') putField(out, key, String(v));
    else throw new ProtocolError(`JSON header extFields.${key} is not a string: ${describe(v)}`);
  }
  return out;
}

function describe(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}
