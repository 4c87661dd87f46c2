import { ProtocolError, type MessageRecord } from '@mqkit/core';
import { MessageDecodeError } from '../errors/message-decode.error';
import { decodeBatchBody } from './batch-body.codec';
import { inflateBody } from './body-compression';
import { readSafeInt64 } from './checked-long';
import { decodeProperties } from './properties.codec';
import { MessageMagic, MessageSysFlag } from './remoting-codes';
import { formatSocketAddress, isV4Mapped } from './socket-address.codec';
import { v4HostAt } from './v4-host-cache';

/** Where the records come from and how far to go. */
export interface MessageDecodeOptions {
  /** The broker that served the records; the record itself does not say. */
  readonly brokerName: string;
  /** Expand inner batches (sysFlag INNER_BATCH + NEED_UNWRAP) into their messages, as the Java client does. Default true. */
  readonly unwrapInnerBatch?: boolean;
  /** Cap on an inflated body; a larger one is a decode error. Default 64 MiB. */
  readonly maxInflatedBytes?: number;
}

/**
 * The smallest record: 20 bytes of ints, two longs, sysFlag, born timestamp, IPv4 born host, store timestamp,
 * IPv4 store host, reconsumeTimes, prepared offset, body length, 1-byte topic length, properties length.
 */
export const MIN_RECORD_SIZE = 4 + 4 + 4 + 4 + 4 + 8 + 8 + 4 + 8 + 8 + 8 + 8 + 4 + 8 + 4 + 1 + 2;

/**
 * Decodes a PULL body: stored message records back to back (RocketMQ's MessageDecoder.decodes). Each record is
 * sliced by its totalSize and must be consumed exactly. A bad record throws a MessageDecodeError carrying the
 * records decoded before it.
 */
export function decodeMessageRecords(bytes: Buffer, options: MessageDecodeOptions): MessageRecord[] {
  const out: MessageRecord[] = [];
  let at = 0;
  while (at < bytes.length) {
    try {
      at = decodeRecordAt(bytes, at, options, out);
    } catch (error) {
      if (error instanceof MessageDecodeError || !(error instanceof ProtocolError)) throw error;
      throw new MessageDecodeError(error.message, { position: at, decoded: out, cause: error });
    }
  }
  return out;
}

/** Decodes a buffer holding exactly one stored record (CONSUME_MESSAGE_DIRECTLY, CHECK_TRANSACTION_STATE). */
export function decodeMessageRecord(bytes: Buffer, options: MessageDecodeOptions): MessageRecord {
  const records = decodeMessageRecords(bytes, { ...options, unwrapInnerBatch: false });
  if (records.length !== 1)
    throw new MessageDecodeError(`expected one record, found ${records.length}`, { position: 0, decoded: records });
  return records[0]!;
}

/** Decodes the record at `start`, appends it (or its inner messages) to `out`, and returns where the next begins. */
function decodeRecordAt(bytes: Buffer, start: number, options: MessageDecodeOptions, out: MessageRecord[]): number {
  const left = bytes.length - start;
  if (left < 4) throw new ProtocolError(`${left} trailing bytes cannot hold a record size`);
  const storeSize = bytes.readInt32BE(start);
  if (storeSize < MIN_RECORD_SIZE || storeSize > left)
    throw new ProtocolError(`record size ${storeSize} outside ${MIN_RECORD_SIZE}..${left}`);
  const end = start + storeSize;
  const need = (at: number, n: number, what: string): void => {
    if (n < 0 || at + n > end)
      throw new ProtocolError(`${what} (${n} bytes at ${at - start}) overruns the ${storeSize}-byte record`);
  };

  const magic = bytes.readInt32BE(start + 4);
  if (magic !== MessageMagic.V1 && magic !== MessageMagic.V2)
    throw new ProtocolError(`unknown magic code 0x${(magic >>> 0).toString(16)}`);
  const bodyCRC = bytes.readInt32BE(start + 8);
  const queueId = bytes.readInt32BE(start + 12);
  const flag = bytes.readInt32BE(start + 16);
  const queueOffset = readSafeInt64(bytes, start + 20, 'queueOffset');
  const commitLogOffset = readSafeInt64(bytes, start + 28, 'commitLogOffset');
  const storedSysFlag = bytes.readInt32BE(start + 36);
  const bornTimestamp = readSafeInt64(bytes, start + 40, 'bornTimestamp');
  let at = start + 48;

  const bornIpLength = (storedSysFlag & MessageSysFlag.BORNHOST_V6) === 0 ? 4 : 16;
  need(at, bornIpLength + 4 + 8, 'born host');
  const bornPort = port(bytes, at + bornIpLength, 'born');
  const bornHost =
    bornIpLength === 4
      ? v4HostAt(bytes, at, bornPort).host
      : formatSocketAddress(bytes.subarray(at, at + bornIpLength), bornPort);
  at += bornIpLength + 4;
  const storeTimestamp = readSafeInt64(bytes, at, 'storeTimestamp');
  at += 8;

  const storeIpLength = (storedSysFlag & MessageSysFlag.STOREHOSTADDRESS_V6) === 0 ? 4 : 16;
  need(at, storeIpLength + 4 + 4 + 8 + 4, 'store host');
  const storePort = port(bytes, at + storeIpLength, 'store');
  let storeHost: string;
  let offsetMsgId: string;
  if (storeIpLength === 4) {
    const host = v4HostAt(bytes, at, storePort);
    storeHost = host.host;
    // The id is the store host's 8 bytes then the commit-log offset's 8, in uppercase hex (offsetMsgIdOf's layout).
    offsetMsgId = host.idPrefix + bytes.toString('hex', start + 28, start + 36).toUpperCase();
  } else {
    const storeIp = bytes.subarray(at, at + storeIpLength);
    storeHost = formatSocketAddress(storeIp, storePort);
    offsetMsgId = offsetMsgIdOf(
      storeIp,
      bytes.subarray(at + storeIpLength, at + storeIpLength + 4),
      bytes.subarray(start + 28, start + 36),
    );
  }
  at += storeIpLength + 4;
  const reconsumeTimes = bytes.readInt32BE(at);
  const preparedTransactionOffset = readSafeInt64(bytes, at + 4, 'preparedTransactionOffset');
  at += 12;

  const bodyLength = bytes.readInt32BE(at);
  at += 4;
  need(at, bodyLength, 'body');
  const storedBody = bytes.subarray(at, at + bodyLength);
  at += bodyLength;

  // V1 reads the topic length as a signed byte (so > 127 is invalid); V2 as a signed short.
  need(at, magic === MessageMagic.V1 ? 1 : 2, 'topic length');
  const topicLength = magic === MessageMagic.V1 ? bytes.readInt8(at) : bytes.readInt16BE(at);
  at += magic === MessageMagic.V1 ? 1 : 2;
  need(at, topicLength, 'topic');
  const topic = bytes.toString('utf8', at, at + topicLength);
  at += topicLength;

  need(at, 2, 'properties length');
  const propsLength = bytes.readInt16BE(at);
  at += 2;
  need(at, propsLength, 'properties');
  const properties = decodeProperties(bytes.toString('utf8', at, at + propsLength));
  at += propsLength;
  if (at !== end) throw new ProtocolError(`record has ${end - at} bytes after its properties`);

  const { body, sysFlag } = inflateBody(
    storedBody,
    storedSysFlag,
    options.maxInflatedBytes,
    `message ${topic}@${options.brokerName}:${queueId} offset ${queueOffset}`,
  );
  const record: MessageRecord = {
    topic,
    brokerName: options.brokerName,
    queueId,
    queueOffset,
    commitLogOffset,
    flag,
    sysFlag,
    body,
    properties,
    bornTimestamp,
    bornHost,
    storeTimestamp,
    storeHost,
    reconsumeTimes,
    preparedTransactionOffset,
    offsetMsgId,
    bodyCRC,
    storeSize,
  };
  const unwrap = options.unwrapInnerBatch ?? true;
  const innerBatch = MessageSysFlag.INNER_BATCH | MessageSysFlag.NEED_UNWRAP;
  if (unwrap && (sysFlag & innerBatch) === innerBatch) out.push(...unwrapInnerBatch(record));
  else out.push(record);
  return end;
}

/**
 * The messages of an inner batch (PullAPIWrapper + MessageDecoder.decodeMessage): each takes flag, body and
 * properties from its entry, queueOffset = the record's + index, and the rest from the enclosing record.
 */
function unwrapInnerBatch(record: MessageRecord): MessageRecord[] {
  return decodeBatchBody(record.body).map((entry, i) => {
    const queueOffset = record.queueOffset + i;
    if (!Number.isSafeInteger(queueOffset))
      throw new ProtocolError(`inner batch queueOffset ${record.queueOffset} + ${i} is not safe`);
    return {
      ...record,
      queueOffset,
      flag: entry.flag,
      body: entry.body,
      properties: entry.properties,
      bodyCRC: entry.bodyCRC,
      storeSize: entry.storeSize,
    };
  });
}

function port(bytes: Buffer, at: number, which: string): number {
  const value = bytes.readInt32BE(at);
  // Java's InetSocketAddress refuses ports outside 0..65535, which fails the whole decode.
  if (value < 0 || value > 65535) throw new ProtocolError(`${which} host port ${value} outside 0..65535`);
  return value;
}

/**
 * RocketMQ's offset message id: uppercase hex of store IP, port (4 bytes) and commit-log offset (8 bytes); 32
 * chars for IPv4, 56 for IPv6. An IPv4-mapped IPv6 store host is what Java turns into an Inet4Address: its id
 * holds the 4-byte address, and Java's createMessageId then returns the whole 28-byte buffer, so 12 zero bytes
 * trail. Copied as is, so ids match those Java tools show.
 */
export function offsetMsgIdOf(storeIp: Buffer, portBytes: Buffer, offsetBytes: Buffer): string {
  const mapped = storeIp.length === 16 && isV4Mapped(storeIp);
  const ip = mapped ? storeIp.subarray(12) : storeIp;
  const id = Buffer.alloc(storeIp.length === 4 ? 16 : 28);
  ip.copy(id, 0);
  portBytes.copy(id, ip.length);
  offsetBytes.copy(id, ip.length + 4);
  return id.toString('hex').toUpperCase();
}
