import type { MessageRecord } from '@mqkit/core';
import { javaStringHashCode } from '@mqkit/core';

/** Fixed part of RocketMQ's stored record: 4+4+4+4+4+8+8+4+8+8+8+8+4+8 bytes, plus length prefixes. */
const RECORD_OVERHEAD = 91;

/**
 * A message as the embedded broker stores it: the full MessageRecord, with the offset message id computed on
 * demand (hex of store host, port and commit-log offset, as RocketMQ's MessageDecoder.createMessageId).
 */
export class StoredMessage implements MessageRecord {
  readonly tagsCode: number;
  private msgIdCache: string | undefined;

  constructor(
    readonly topic: string,
    readonly brokerName: string,
    readonly queueId: number,
    readonly queueOffset: number,
    readonly commitLogOffset: number,
    readonly body: Buffer,
    readonly properties: Readonly<Record<string, string>>,
    readonly flag: number,
    readonly sysFlag: number,
    readonly bornTimestamp: number,
    readonly bornHost: string,
    readonly storeTimestamp: number,
    readonly storeHost: string,
    readonly reconsumeTimes: number,
  ) {
    const tags = properties.TAGS;
    this.tagsCode = tags ? javaStringHashCode(tags) : 0;
  }

  get preparedTransactionOffset(): number {
    return 0;
  }
  get bodyCRC(): number {
    return 0;
  }
  get storeSize(): number {
    return storeSizeOf(this.topic, this.body, this.properties);
  }

  get offsetMsgId(): string {
    if (this.msgIdCache === undefined) this.msgIdCache = offsetMsgIdOf(this.storeHost, this.commitLogOffset);
    return this.msgIdCache;
  }
}

export function storeSizeOf(topic: string, body: Buffer, properties: Readonly<Record<string, string>>): number {
  let props = 0;
  for (const k in properties) props += k.length + properties[k]!.length + 2;
  return RECORD_OVERHEAD + body.length + topic.length + props;
}

const hostPrefixes = new Map<string, string>();

/** RocketMQ's offset message id: 16 bytes (IPv4 4, port 4, commit-log offset 8) as 32 uppercase hex chars. */
export function offsetMsgIdOf(storeHost: string, commitLogOffset: number): string {
  let prefix = hostPrefixes.get(storeHost);
  if (prefix === undefined) {
    const [ip = '127.0.0.1', port = '0'] = storeHost.split(':');
    const buf = Buffer.alloc(8);
    for (const [i, part] of ip.split('.').entries()) buf.writeUInt8(Number(part) & 0xff, i);
    buf.writeInt32BE(Number(port), 4);
    prefix = buf.toString('hex').toUpperCase();
    hostPrefixes.set(storeHost, prefix);
  }
  return prefix + commitLogOffset.toString(16).toUpperCase().padStart(16, '0');
}
