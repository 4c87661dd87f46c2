/**
 * RocketMQ's ConsistentHashRouter over client ids: a sorted ring of virtual nodes `<clientId>-<k>`.
 * Java keeps a TreeMap<Long, VirtualNode>; here a sorted array of (hash, node) with binary search.
 */
export class ConsistentHashRouter {
  private readonly hashes: number[] = [];
  private readonly owners: string[] = [];

  constructor(
    nodes: Iterable<string>,
    virtualNodeCnt: number,
    private readonly hashFunction: (key: string) => number,
  ) {
    const ring = new Map<number, string>();
    for (const node of nodes) {
      // Java numbers a node's replicas after those already on the ring (a duplicated id gets <id>-10.. next).
      let existing = 0;
      for (const owner of ring.values()) if (owner === node) existing++;
      // TreeMap.put: on a hash collision the later virtual node wins.
      for (let i = 0; i < virtualNodeCnt; i++) ring.set(this.hashFunction(`${node}-${i + existing}`), node);
    }
    const keys = [...ring.keys()].sort((a, b) => a - b);
    for (const key of keys) {
      this.hashes.push(key);
      this.owners.push(ring.get(key)!);
    }
  }

  /** The client owning `key`: the first ring entry at or after hash(key), wrapping to the first; undefined if empty. */
  routeNode(key: string): string | undefined {
    return this.routeHash(this.hashFunction(key));
  }

  /** The client owning a key whose hash is already known. */
  routeHash(hash: number): string | undefined {
    if (this.hashes.length === 0) return undefined;
    let lo = 0;
    let hi = this.hashes.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.hashes[mid]! < hash) lo = mid + 1;
      else hi = mid;
    }
    return this.owners[lo === this.hashes.length ? 0 : lo];
  }
}
