/**
 * The IPv4 hosts of stored records, formatted once. A pull's records repeat their hosts (one store host per
 * broker, a few born hosts per producer), and formatting each record's two addresses and its offset message id's
 * host part anew cost a string and several Buffer views per record on the consume path. Entries are keyed by
 * address and port as one number (32 + 16 bits, a safe integer); the table is emptied when it passes MAX_ENTRIES,
 * so a stream of distinct born hosts cannot grow it without bound.
 */

export interface V4Host {
  /** `a.b.c.d:port`, as formatSocketAddress writes it. */
  readonly host: string;
  /** Uppercase hex of the 4 address bytes and the port as 4 bytes: the first 16 chars of an offset message id. */
  readonly idPrefix: string;
}

export const MAX_ENTRIES = 4096;

const table = new Map<number, V4Host>();

/** The host whose 4 address bytes start at `at` in `bytes`, with `port` (already checked to be 0..65535). */
export function v4HostAt(bytes: Buffer, at: number, port: number): V4Host {
  const address = bytes.readUInt32BE(at);
  const key = address * 65536 + port;
  let entry = table.get(key);
  if (entry === undefined) {
    if (table.size >= MAX_ENTRIES) table.clear();
    const prefix = Buffer.alloc(8);
    prefix.writeUInt32BE(address, 0);
    prefix.writeUInt32BE(port, 4);
    entry = {
      host: `${bytes[at]}.${bytes[at + 1]}.${bytes[at + 2]}.${bytes[at + 3]}:${port}`,
      idPrefix: prefix.toString('hex').toUpperCase(),
    };
    table.set(key, entry);
  }
  return entry;
}

/** Entries held now (for tests). */
export function v4HostEntries(): number {
  return table.size;
}
