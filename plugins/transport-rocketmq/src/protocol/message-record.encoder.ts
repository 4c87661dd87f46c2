import * as zlib from 'node:zlib';
import { MessageValidationError, ProtocolError } from '@mqkit/core';
import { compressionTypeOf, compressWith } from '@mqkit/core/internal';
import { encodeProperties } from './properties.codec';
import { MessageMagic, MessageSysFlag } from './remoting-codes';
import { parseSocketAddress } from './socket-address.codec';

/** The fields of a stored record to encode; defaults are what a fresh broker would store. */
export interface MessageRecordInput {
  readonly topic: string;
  readonly queueId: number;
  readonly queueOffset: number;
  readonly commitLogOffset: number;
  readonly flag?: number;
  /** Host bits (0x10, 0x20) are set from the host strings; with COMPRESSED the body is compressed with the type bits' codec. */
  readonly sysFlag?: number;
  /** The body as the consumer should read it (before compression). */
  readonly body: Buffer;
  readonly properties?: Readonly<Record<string, string>>;
  readonly bornTimestamp: number;
  /** `a.b.c.d:port` or `[v6]:port`. */
  readonly bornHost: string;
  readonly storeTimestamp: number;
  readonly storeHost: string;
  readonly reconsumeTimes?: number;
  readonly preparedTransactionOffset?: number;
  /** Default: CRC32 of the stored body, as the broker computes it. */
  readonly bodyCRC?: number;
  /** Default: V2 when the topic is over 127 UTF-8 bytes (the broker's autoMessageVersionOnTopicLen), else V1. */
  readonly magic?: 'V1' | 'V2';
}

/**
 * Encodes a record exactly as a broker stores and serves it (CommitLog / MessageDecoder.encode), for tests, the
 * embedded fakes and the fuzzer. The inverse of decodeMessageRecords.
 */
export function encodeMessageRecord(input: MessageRecordInput): Buffer {
  const born = parseSocketAddress(input.bornHost);
  const store = parseSocketAddress(input.storeHost);
  let sysFlag = (input.sysFlag ?? 0) & ~(MessageSysFlag.BORNHOST_V6 | MessageSysFlag.STOREHOSTADDRESS_V6);
  if (born.ip.length === 16) sysFlag |= MessageSysFlag.BORNHOST_V6;
  if (store.ip.length === 16) sysFlag |= MessageSysFlag.STOREHOSTADDRESS_V6;
  // Compressed as a 5.x producer does at its default level; an unknown type is stored as given (a corrupt record).
  const type = compressionTypeOf(sysFlag);
  const body =
    type !== undefined && type !== 'unknown' && input.body.length > 0 ? compressWith(type, input.body, 5) : input.body;
  const topic = Buffer.from(input.topic, 'utf8');
  const magic = input.magic ?? (topic.length > 127 ? 'V2' : 'V1');
  if (topic.length > (magic === 'V1' ? 127 : 0x7fff))
    throw new ProtocolError(`topic of ${topic.length} bytes does not fit a ${magic} record`);
  const props = Buffer.from(encodeProperties(input.properties ?? {}), 'utf8');
  if (props.length > 0x7fff)
    throw new MessageValidationError('properties.size', `properties of ${props.length} bytes exceed 32767`);

  const size =
    4 +
    4 +
    4 +
    4 +
    4 +
    8 +
    8 +
    4 +
    8 +
    (born.ip.length + 4) +
    8 +
    (store.ip.length + 4) +
    4 +
    8 +
    (4 + body.length) +
    ((magic === 'V1' ? 1 : 2) + topic.length) +
    (2 + props.length);
  const out = Buffer.allocUnsafe(size);
  let at = out.writeInt32BE(size, 0);
  at = out.writeInt32BE(magic === 'V1' ? MessageMagic.V1 : MessageMagic.V2, at);
  at = out.writeInt32BE(input.bodyCRC ?? zlib.crc32(body) | 0, at);
  at = out.writeInt32BE(input.queueId, at);
  at = out.writeInt32BE(input.flag ?? 0, at);
  at = out.writeBigInt64BE(BigInt(input.queueOffset), at);
  at = out.writeBigInt64BE(BigInt(input.commitLogOffset), at);
  at = out.writeInt32BE(sysFlag | 0, at);
  at = out.writeBigInt64BE(BigInt(input.bornTimestamp), at);
  at += born.ip.copy(out, at);
  at = out.writeInt32BE(born.port, at);
  at = out.writeBigInt64BE(BigInt(input.storeTimestamp), at);
  at += store.ip.copy(out, at);
  at = out.writeInt32BE(store.port, at);
  at = out.writeInt32BE(input.reconsumeTimes ?? 0, at);
  at = out.writeBigInt64BE(BigInt(input.preparedTransactionOffset ?? 0), at);
  at = out.writeInt32BE(body.length, at);
  at += body.copy(out, at);
  at = magic === 'V1' ? out.writeInt8(topic.length, at) : out.writeInt16BE(topic.length, at);
  at += topic.copy(out, at);
  at = out.writeInt16BE(props.length, at);
  props.copy(out, at);
  return out;
}
