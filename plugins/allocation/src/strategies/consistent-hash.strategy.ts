import { ConfigurationError, type AllocationInput, type AllocationStrategy, type MessageQueue } from '@mqkit/core';
import { checkAllocationInput } from '@mqkit/core/internal';
import { md5Hash } from '../hashing/md5-hash';
import { messageQueueString } from '../hashing/message-queue-string';
import { ConsistentHashRouter } from './consistent-hash-router';

/**
 * RocketMQ's AllocateMessageQueueConsistentHash ("CONSISTENT_HASH"): each member puts `virtualNodeCnt` virtual
 * nodes `<clientId>-<k>` on an MD5 ring; a queue, keyed by Java's `MessageQueue.toString()`, belongs to the first
 * node at or after its hash. Few queues move when a member joins or leaves, but with 10 virtual nodes the shares are
 * uneven (one member may get twice another's).
 *
 * @param virtualNodeCnt - virtual nodes per member (default 10, as in Java); negative is a ConfigurationError.
 * @param hashFunction - replaces the MD5 hash (Java's HashFunction); must be deterministic, same on every member.
 */
export class AllocateMessageQueueConsistentHash implements AllocationStrategy {
  readonly name = 'CONSISTENT_HASH';
  private readonly hashFunction: (key: string) => number;
  // The last ring built: every member of a rebalance (and every topic of a group) asks with the same cidAll.
  private cached?: { cidAll: readonly string[]; router: ConsistentHashRouter };
  // Queue keys hash the same every time; MD5 of each queue on every call is most of this strategy's cost.
  private readonly queueHashes = new Map<string, number>();

  constructor(
    readonly virtualNodeCnt = 10,
    hashFunction?: (key: string) => number,
  ) {
    if (!Number.isInteger(virtualNodeCnt) || virtualNodeCnt < 0) {
      throw new ConfigurationError({
        source: 'AllocateMessageQueueConsistentHash',
        option: 'virtualNodeCnt',
        value: virtualNodeCnt,
        allowed: 'an integer >= 0',
      });
    }
    this.hashFunction = hashFunction ?? md5Hash;
  }

  allocate(input: AllocationInput): MessageQueue[] {
    if (!checkAllocationInput(input)) return [];
    const router = this.routerFor(input.cidAll);
    return input.mqAll.filter((mq) => router.routeHash(this.queueHash(messageQueueString(mq))) === input.currentCID);
  }

  private queueHash(key: string): number {
    let hash = this.queueHashes.get(key);
    if (hash === undefined) {
      if (this.queueHashes.size >= 65_536) this.queueHashes.clear(); // bounded: topics come and go
      hash = this.hashFunction(key);
      this.queueHashes.set(key, hash);
    }
    return hash;
  }

  private routerFor(cidAll: readonly string[]): ConsistentHashRouter {
    const cached = this.cached;
    if (cached && cached.cidAll.length === cidAll.length && cached.cidAll.every((id, i) => id === cidAll[i]))
      return cached.router;
    const router = new ConsistentHashRouter(cidAll, this.virtualNodeCnt, this.hashFunction);
    this.cached = { cidAll: [...cidAll], router };
    return router;
  }
}
