import { formatSocketAddress } from './socket-address.codec';

/** Where an offset message id points: the storing broker's address and the record's commit-log offset. */
export interface OffsetMessageId {
  /** `ip:port` (IPv6 in brackets), as RemotingHelper formats it. */
  readonly address: string;
  readonly commitLogOffset: number;
}

/**
 * Reads an offset message id (MessageDecoder.decodeMessageId): 32 hex digits (IPv4 store host, port, commit-log
 * offset) or 56 (IPv6). Undefined for anything else. A producer's UNIQ_KEY is 32 hex digits too (IP, pid, a class
 * loader hash, time, counter), so Java decodes one as an address and fails to connect; here a port outside
 * 1..65535 or an offset past 2^53 already says "not an offset id", and the caller still checks the address is a
 * broker of its cluster.
 */
export function decodeOffsetMsgId(id: string): OffsetMessageId | undefined {
  if ((id.length !== 32 && id.length !== 56) || !/^[0-9A-Fa-f]+$/.test(id)) return undefined;
  const bytes = Buffer.from(id, 'hex');
  const ipLength = id.length === 32 ? 4 : 16;
  const port = bytes.readInt32BE(ipLength);
  if (port < 1 || port > 65535) return undefined;
  const offset = bytes.readBigInt64BE(ipLength + 4);
  if (offset < 0n || offset > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  return { address: formatSocketAddress(bytes.subarray(0, ipLength), port), commitLogOffset: Number(offset) };
}
