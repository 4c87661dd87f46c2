import { MessageValidationError, ProtocolError } from '@mqkit/core';
import { decodeProperties, encodeProperties } from './properties.codec';

/** One message inside a batch body (SEND_BATCH_MESSAGE, or a stored inner batch). */
export interface BatchEntry {
  readonly flag: number;
  readonly body: Buffer;
  readonly properties: Readonly<Record<string, string>>;
}

/** A decoded batch entry, with the two fields RocketMQ's reader skips. */
export interface DecodedBatchEntry extends BatchEntry {
  readonly bodyCRC: number;
  readonly storeSize: number;
}

/** totalSize, magic, bodyCRC, flag, bodyLen (4 bytes each) and propertiesLen (2). */
const ENTRY_OVERHEAD = 4 + 4 + 4 + 4 + 4 + 2;

/**
 * Encodes a batch body as RocketMQ's MessageDecoder.encodeMessages: per message totalSize i32 · magic 0 ·
 * bodyCRC 0 · flag i32 · bodyLen i32 + body · propertiesLen i16 + properties. Properties over 32767 UTF-8 bytes
 * do not fit the i16 and are refused (MessageValidationError `properties.size`).
 */
export function encodeBatchBody(entries: readonly BatchEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const props = Buffer.from(encodeProperties(entry.properties), 'utf8');
    if (props.length > 0x7fff) {
      throw new MessageValidationError(
        'properties.size',
        `properties of ${props.length} bytes exceed RocketMQ's 32767-byte limit`,
      );
    }
    const size = ENTRY_OVERHEAD + entry.body.length + props.length;
    const out = Buffer.allocUnsafe(size);
    let at = out.writeInt32BE(size, 0);
    at = out.writeInt32BE(0, at);
    at = out.writeInt32BE(0, at);
    at = out.writeInt32BE(entry.flag | 0, at);
    at = out.writeInt32BE(entry.body.length, at);
    at += entry.body.copy(out, at);
    at = out.writeInt16BE(props.length, at);
    props.copy(out, at);
    parts.push(out);
  }
  return Buffer.concat(parts);
}

/**
 * Decodes a batch body (MessageDecoder.decodeMessages). Each entry's totalSize must match its fields exactly;
 * anything else is a ProtocolError naming the byte offset.
 */
export function decodeBatchBody(bytes: Buffer): DecodedBatchEntry[] {
  const out: DecodedBatchEntry[] = [];
  let at = 0;
  while (at < bytes.length) {
    const start = at;
    const left = bytes.length - at;
    if (left < ENTRY_OVERHEAD)
      throw new ProtocolError(`batch entry at byte ${start}: ${left} bytes left, need ${ENTRY_OVERHEAD}`);
    const size = bytes.readInt32BE(at);
    if (size < ENTRY_OVERHEAD || size > left)
      throw new ProtocolError(`batch entry at byte ${start}: size ${size} outside ${ENTRY_OVERHEAD}..${left}`);
    const end = start + size;
    const bodyCRC = bytes.readInt32BE(at + 8);
    const flag = bytes.readInt32BE(at + 12);
    const bodyLength = bytes.readInt32BE(at + 16);
    at += 20;
    if (bodyLength < 0 || bodyLength > end - at - 2)
      throw new ProtocolError(`batch entry at byte ${start}: body length ${bodyLength} does not fit`);
    const body = bytes.subarray(at, at + bodyLength);
    at += bodyLength;
    const propsLength = bytes.readInt16BE(at);
    at += 2;
    if (propsLength < 0 || at + propsLength !== end) {
      throw new ProtocolError(
        `batch entry at byte ${start}: properties length ${propsLength} does not match size ${size}`,
      );
    }
    const properties = decodeProperties(bytes.toString('utf8', at, end));
    at = end;
    out.push({ flag, body, properties, bodyCRC, storeSize: size });
  }
  return out;
}
