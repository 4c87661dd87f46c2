import type { AllocationInput, AllocationStrategy, MessageQueue } from '@mqkit/core';
import { checkAllocationInput } from '@mqkit/core/internal';
import { pairWeightBits, stringHash32 } from '../hashing/rendezvous-hash';
import { descendingOrder } from './descending-order';

/** The hash key of a queue; NUL cannot occur in topic or broker names, so keys never collide by concatenation. */
function queueKey(mq: MessageQueue): string {
  return `${mq.topic}\u0000${mq.brokerName}\u0000${mq.queueId}`;
}

/**
 * Who owns each queue: `owners[i]` is the index in `cidAll` (distinct ids) of the member that gets `mqAll[i]`.
 * Every member computes the same table from the same sorted inputs; exported for the simulator and tests.
 *
 * The algorithm, a capacity-limited rendezvous draft:
 * 1. Each member ranks every queue by a rendezvous weight w(queue, member) (highest first): its preference list.
 * 2. Rounds k = 0, 1, 2, ...: in round k every member bids for the k-th queue on its list. Bids on a queue that is
 *    still free are served in order of weight (ties: lower member index first); a bid wins if the member is under its
 *    capacity.
 * 3. Capacity: floor(n/m) for everyone, plus one for the first n mod m members to reach floor(n/m)+1.
 *
 * Why rounds by rank rather than by raw weight (plain capacity-limited HRW): every member advances through its list
 * at the same pace, so members fill up at about the same time and the end of the draft, where capacity limits push
 * queues to second choices, stays small. Those second choices are what moves when the membership changes.
 */
export function balancedRendezvousOwners(mqAll: readonly MessageQueue[], cidAll: readonly string[]): Int32Array {
  const n = mqAll.length;
  const m = cidAll.length;
  const owners = new Int32Array(n).fill(-1);
  if (n === 0 || m === 0) return owners;
  const queueHashes = mqAll.map((mq) => stringHash32(queueKey(mq)));
  const weights: Uint32Array[] = [];
  const preferences: Int32Array[] = [];
  for (let c = 0; c < m; c++) {
    const memberHash = stringHash32(cidAll[c]!);
    const w = new Uint32Array(n);
    for (let q = 0; q < n; q++) w[q] = pairWeightBits(queueHashes[q]!, memberHash);
    const order = descendingOrder(w);
    weights.push(w);
    preferences.push(order);
  }
  const floor = Math.floor(n / m);
  let ceilSlotsLeft = n % m;
  const load = new Int32Array(m);
  let unassigned = n;
  const bidders: number[] = [];
  for (let round = 0; round < n && unassigned > 0; round++) {
    bidders.length = 0;
    // Capacities only shrink (floor+1 -> floor once the ceil slots are gone), so a full member stays full.
    const capacity = ceilSlotsLeft > 0 ? floor + 1 : floor;
    for (let c = 0; c < m; c++) if (load[c]! < capacity && owners[preferences[c]![round]!] === -1) bidders.push(c);
    bidders.sort((a, b) => weights[b]![preferences[b]![round]!]! - weights[a]![preferences[a]![round]!]! || a - b);
    for (const c of bidders) {
      const q = preferences[c]![round]!;
      if (owners[q] !== -1) continue;
      const capacity = ceilSlotsLeft > 0 ? floor + 1 : floor;
      if (load[c]! >= capacity) continue;
      owners[q] = c;
      load[c]!++;
      unassigned--;
      if (load[c] === floor + 1) ceilSlotsLeft--;
    }
  }
  return owners;
}

/**
 * mqkit's own strategy ("BALANCED_RENDEZVOUS"): as balanced as AVG (every member gets floor(n/m) or ceil(n/m)
 * queues) and nearly as stable as a hash ring: when a member joins or leaves, few queues beyond the unavoidable ones
 * (the joiner's new share, or the leaver's old share) change owner. Measured with `npm run simulate`; figures in
 * the package README. Stateless like every RocketMQ strategy: all members compute the same table from the same
 * sorted inputs. All members of a group must use it (as with any strategy).
 *
 * @example
 * ```ts
 * @Consumer({ group: 'orders', topic: 'orders', strategy: 'BALANCED_RENDEZVOUS' })  // plugins: [allocationStrategies()]
 * ```
 */
export class AllocateMessageQueueBalancedRendezvous implements AllocationStrategy {
  readonly name = 'BALANCED_RENDEZVOUS';

  allocate(input: AllocationInput): MessageQueue[] {
    if (!checkAllocationInput(input)) return [];
    // A duplicated id (never sent by a broker) would get two shares that one process cannot tell apart: count it once.
    const members = new Set(input.cidAll).size === input.cidAll.length ? input.cidAll : [...new Set(input.cidAll)];
    const me = members.indexOf(input.currentCID);
    const owners = balancedRendezvousOwners(input.mqAll, members);
    return input.mqAll.filter((_, q) => owners[q] === me);
  }
}
