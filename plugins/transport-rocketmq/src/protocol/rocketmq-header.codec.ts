import { ProtocolError } from '@mqkit/core';
import { LanguageCode, languageName } from './remoting-codes';
import type { CommandHeader } from './json-header.codec';
import { emptyFields, putField } from './remoting-command';

/** code i16, language u8, version i16, opaque i32, flag i32, remark length i32, ext length i32. */
const FIXED_PART = 2 + 1 + 2 + 4 + 4 + 4 + 4;

/**
 * RocketMQ's binary header (serialize type 1, RocketMQSerializable): code i16 · language byte · version i16 ·
 * opaque i32 · flag i32 · remarkLen i32 + UTF-8 · extLen i32 + (keyLen u16, key, valLen i32, val)*. A string
 * length of 0 means null. Codes above 32767 (POP's 200050) cannot be carried, so encoding refuses them.
 */
export function encodeRocketMqHeader(header: CommandHeader): Buffer {
  checkRange(header.code, -0x8000, 0x7fff, 'code');
  checkRange(header.version, -0x8000, 0x7fff, 'version');
  const language =
    header.language === undefined ? LanguageCode.JAVA : LanguageCode[header.language as keyof typeof LanguageCode];
  if (language === undefined) throw new ProtocolError(`unknown language ${header.language} for a ROCKETMQ header`);
  const remark = header.remark ? Buffer.from(header.remark, 'utf8') : undefined;
  const entries: Array<[Buffer, Buffer]> = [];
  let extLength = 0;
  for (const key of Object.keys(header.extFields)) {
    const k = Buffer.from(key, 'utf8');
    const v = Buffer.from(header.extFields[key]!, 'utf8');
    if (k.length > 0x7fff) throw new ProtocolError(`extFields key longer than 32767 bytes: ${key.slice(0, 40)}…`);
    entries.push([k, v]);
    extLength += 2 + k.length + 4 + v.length;
  }
  const out = Buffer.allocUnsafe(FIXED_PART + (remark?.length ?? 0) + extLength);
  let at = out.writeInt16BE(header.code, 0);
  at = out.writeUInt8(language, at);
  at = out.writeInt16BE(header.version, at);
  at = out.writeInt32BE(header.opaque | 0, at);
  at = out.writeInt32BE(header.flag | 0, at);
  at = out.writeInt32BE(remark?.length ?? 0, at);
  if (remark) at += remark.copy(out, at);
  at = out.writeInt32BE(extLength, at);
  for (const [k, v] of entries) {
    at = out.writeUInt16BE(k.length, at);
    at += k.copy(out, at);
    at = out.writeInt32BE(v.length, at);
    at += v.copy(out, at);
  }
  return out;
}

/**
 * Reads a binary header. Every length is checked against what is left before anything is read, and the
 * header must be consumed exactly; any violation is a ProtocolError. Null keys or values (length 0) are left
 * out of extFields.
 */
export function decodeRocketMqHeader(bytes: Buffer): CommandHeader {
  if (bytes.length < FIXED_PART) throw new ProtocolError(`ROCKETMQ header too short: ${bytes.length} bytes`);
  const code = bytes.readInt16BE(0);
  const languageByte = bytes.readInt8(2);
  const version = bytes.readInt16BE(3);
  const opaque = bytes.readInt32BE(5);
  const flag = bytes.readInt32BE(9);
  let at = 13;
  const remarkLength = bytes.readInt32BE(at);
  at += 4;
  checkLength(remarkLength, bytes.length - at - 4, 'remark');
  const remark = remarkLength === 0 ? undefined : bytes.toString('utf8', at, at + remarkLength);
  at += remarkLength;
  const extLength = bytes.readInt32BE(at);
  at += 4;
  checkLength(extLength, bytes.length - at, 'extFields');
  const end = at + extLength;
  const extFields = emptyFields();
  while (at < end) {
    if (end - at < 6) throw new ProtocolError('ROCKETMQ header: truncated extFields entry');
    const keyLength = bytes.readInt16BE(at);
    at += 2;
    checkLength(keyLength, end - at - 4, 'extFields key');
    const key = keyLength === 0 ? undefined : bytes.toString('utf8', at, at + keyLength);
    at += keyLength;
    const valueLength = bytes.readInt32BE(at);
    at += 4;
    checkLength(valueLength, end - at, 'extFields value');
    const value = valueLength === 0 ? undefined : bytes.toString('utf8', at, at + valueLength);
    at += valueLength;
    if (key !== undefined && value !== undefined) putField(extFields, key, value);
  }
  if (at !== bytes.length) throw new ProtocolError(`ROCKETMQ header has ${bytes.length - at} bytes after extFields`);
  return { code, language: languageName(languageByte), version, opaque, flag, remark, extFields };
}

function checkLength(length: number, available: number, what: string): void {
  if (length < 0 || length > available) {
    throw new ProtocolError(`ROCKETMQ header: ${what} length ${length} outside 0..${Math.max(available, 0)}`);
  }
}

function checkRange(value: number, min: number, max: number, what: string): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ProtocolError(`a ROCKETMQ header cannot carry ${what} ${value} (range ${min}..${max})`);
  }
}
