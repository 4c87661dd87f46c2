import { compareJavaStrings } from '@mqkit/core';
import type { SeededRandom } from './seeded-random';

/** One membership change of the walk, with the sorted member lists before and after. */
export interface MembershipChange {
  readonly kind: 'join' | 'leave';
  readonly member: string;
  readonly before: readonly string[];
  readonly after: readonly string[];
}

export interface WalkOptions {
  readonly minMembers: number;
  readonly maxMembers: number;
  readonly steps: number;
}

/** A client id as RocketMQ builds them, `<ip>@<pid or instance name>`, unique within the walk. */
function newClientId(random: SeededRandom, used: Set<string>): string {
  for (;;) {
    const id = `10.${random.int(4)}.${random.int(256)}.${random.int(256)}@${1000 + random.int(64000)}`;
    if (!used.has(id)) {
      used.add(id);
      return id;
    }
  }
}

/**
 * A seeded random walk of group membership between minMembers and maxMembers: it starts at minMembers; at the
 * bounds it must join (at min) or leave (at max), otherwise it joins or leaves with equal chance. A join adds a new
 * id; a leave removes a member chosen uniformly. Lists are sorted in Java String order, as the runtime sorts them.
 */
export function membershipWalk(random: SeededRandom, options: WalkOptions): MembershipChange[] {
  const used = new Set<string>();
  let members: string[] = [];
  for (let i = 0; i < options.minMembers; i++) members.push(newClientId(random, used));
  members.sort(compareJavaStrings);
  const changes: MembershipChange[] = [];
  for (let step = 0; step < options.steps; step++) {
    const size = members.length;
    const join = size <= options.minMembers ? true : size >= options.maxMembers ? false : random.next() < 0.5;
    let after: string[];
    let member: string;
    if (join) {
      member = newClientId(random, used);
      after = [...members, member].sort(compareJavaStrings);
    } else {
      member = members[random.int(size)]!;
      after = members.filter((id) => id !== member);
    }
    changes.push({ kind: join ? 'join' : 'leave', member, before: members, after });
    members = after;
  }
  return changes;
}
