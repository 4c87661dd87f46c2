/**
 * The store host inside RocketMQ's offset message id (MessageDecoder.decodeMessageId): `ip:port` of the broker that
 * stored the message, from the id's first 8 bytes (IPv4) or 20 bytes (IPv6, written `[ip]:port`). A broker stores
 * with its brokerIP1 and listen port, the address the name server hands to clients. Undefined for anything else.
 */
export function storeHostOf(offsetMsgId: string): string | undefined {
  if (!/^[0-9A-Fa-f]+$/.test(offsetMsgId)) return undefined;
  const id = Buffer.from(offsetMsgId, 'hex');
  if (id.length === 16) return `${[...id.subarray(0, 4)].join('.')}:${id.readInt32BE(4)}`;
  if (id.length === 28) {
    const groups = Array.from({ length: 8 }, (_, i) => id.readUInt16BE(i * 2).toString(16));
    return `[${groups.join(':')}]:${id.readInt32BE(16)}`;
  }
  return undefined;
}
