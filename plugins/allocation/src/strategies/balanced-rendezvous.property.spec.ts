import {
  AllocateMessageQueueAveragely,
  compareJavaStrings,
  compareMessageQueues,
  mqKey,
  type AllocationStrategy,
  type MessageQueue,
} from '@mqkit/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AllocateMessageQueueAveragelyByCircle } from './averagely-by-circle.strategy';
import { AllocateMessageQueueBalancedRendezvous, balancedRendezvousOwners } from './balanced-rendezvous.strategy';

const idArb = fc.oneof(
  fc.string({ minLength: 1, maxLength: 12, unit: 'grapheme' }),
  fc.string({ minLength: 1, maxLength: 6, unit: 'binary' }), // lone surrogates included
  fc.integer({ min: 0, max: 120 }).map((i) => `cid-${i}`), // cid-10 < cid-2
  fc.tuple(fc.nat(255), fc.nat(99999)).map(([a, b]) => `10.0.0.${a}@${b}`),
);

function queuesArb(min: number, max: number): fc.Arbitrary<MessageQueue[]> {
  return fc
    .tuple(fc.integer({ min, max }), fc.integer({ min: 1, max: 4 }), fc.string({ minLength: 1, maxLength: 8 }))
    .map(([n, brokers, topic]) => {
      const mqAll: MessageQueue[] = [];
      // Uneven per broker: broker b gets its share rounded differently.
      for (let i = 0; i < n; i++)
        mqAll.push({ topic, brokerName: `broker-${i % brokers}`, queueId: Math.floor(i / brokers) });
      return mqAll.sort(compareMessageQueues);
    });
}

const membersArb = (min: number, max: number) =>
  fc.uniqueArray(idArb, { minLength: min, maxLength: max }).map((ids) => ids.sort(compareJavaStrings));

function ownersByAllocate(
  strategy: AllocationStrategy,
  mqAll: readonly MessageQueue[],
  cidAll: readonly string[],
): Map<string, string> {
  const owners = new Map<string, string>();
  for (const currentCID of cidAll)
    for (const mq of strategy.allocate({ consumerGroup: 'g', currentCID, mqAll, cidAll }))
      owners.set(mqKey(mq), currentCID);
  return owners;
}

/** Owners by queue key; for BALANCED_RENDEZVOUS straight from the table (the first two properties tie it to allocate). */
function ownersOf(
  strategy: AllocationStrategy,
  mqAll: readonly MessageQueue[],
  cidAll: readonly string[],
): Map<string, string> {
  if (!(strategy instanceof AllocateMessageQueueBalancedRendezvous)) return ownersByAllocate(strategy, mqAll, cidAll);
  const table = balancedRendezvousOwners(mqAll, cidAll);
  return new Map(mqAll.map((mq, q) => [mqKey(mq), cidAll[table[q]!]!]));
}

describe('BALANCED_RENDEZVOUS properties', () => {
  const strategy = new AllocateMessageQueueBalancedRendezvous();

  it('every member gets floor(n/m) or ceil(n/m) and every queue exactly one owner (3000 cases)', () => {
    fc.assert(
      fc.property(queuesArb(1, 200), membersArb(1, 40), fc.nat(), (mqAll, cidAll, pick) => {
        const n = mqAll.length;
        const m = cidAll.length;
        const owners = balancedRendezvousOwners(mqAll, cidAll);
        const shares = new Array<number>(m).fill(0);
        for (const owner of owners) shares[owner]!++; // an unassigned queue (-1) would leave the sum below n
        expect(shares.every((share) => share === Math.floor(n / m) || share === Math.ceil(n / m))).toBe(true);
        expect(shares.reduce((a, b) => a + b, 0)).toBe(n);
        // allocate() returns exactly the member's row of the table, in input order.
        const me = pick % m;
        const mine = strategy.allocate({ consumerGroup: 'g', currentCID: cidAll[me]!, mqAll, cidAll });
        expect(mine).toEqual(mqAll.filter((_, q) => owners[q] === me));
      }),
      { seed: 20240611, numRuns: 3000 },
    );
  }, 30_000);

  it('the table does not depend on which member computes it or on a fresh instance', () => {
    fc.assert(
      fc.property(queuesArb(1, 64), membersArb(1, 12), (mqAll, cidAll) => {
        const a = ownersByAllocate(strategy, mqAll, cidAll);
        const b = ownersByAllocate(new AllocateMessageQueueBalancedRendezvous(), mqAll, cidAll);
        expect([...a]).toEqual([...b]);
        const owners = balancedRendezvousOwners(mqAll, cidAll);
        expect(mqAll.map((mq) => a.get(mqKey(mq)))).toEqual(Array.from(owners, (i) => cidAll[i]));
      }),
      { seed: 7, numRuns: 300 },
    );
  }, 30_000);

  it('a join or leave moves the unavoidable queues plus few more: <= 1.3x the bound at 64+ queues, less than AVG and AVG_BY_CIRCLE (3000 cases)', () => {
    const strategies = {
      BALANCED_RENDEZVOUS: strategy,
      AVG: new AllocateMessageQueueAveragely(),
      AVG_BY_CIRCLE: new AllocateMessageQueueAveragelyByCircle(),
    };
    type Totals = { moved: number; bound: number };
    const totals = new Map<string, Totals>();
    const add = (key: string, moved: number, bound: number) => {
      const t = totals.get(key) ?? { moved: 0, bound: 0 };
      t.moved += moved;
      t.bound += bound;
      totals.set(key, t);
    };
    const change = fc.record({ join: fc.boolean(), newcomer: idArb, leaverIndex: fc.nat() });
    for (const [bucket, min, max] of [
      ['small', 4, 63],
      ['large', 64, 256],
    ] as const) {
      fc.assert(
        fc.property(
          queuesArb(min, max),
          membersArb(2, 12),
          change,
          (mqAll, before, { join, newcomer, leaverIndex }) => {
            if (join && before.includes(newcomer)) return; // not a join
            const member = join ? newcomer : before[leaverIndex % before.length]!;
            const after = join ? [...before, member].sort(compareJavaStrings) : before.filter((id) => id !== member);
            for (const [name, s] of Object.entries(strategies)) {
              const old = ownersOf(s, mqAll, before);
              const next = ownersOf(s, mqAll, after);
              let moved = 0;
              for (const [key, owner] of next) if (old.get(key) !== owner) moved++;
              let bound = 0;
              for (const owner of (join ? next : old).values()) if (owner === member) bound++;
              expect(moved).toBeGreaterThanOrEqual(bound);
              if (name === 'BALANCED_RENDEZVOUS' && join) {
                // The joiner gets its full balanced share at once.
                expect(bound).toBeGreaterThanOrEqual(Math.floor(mqAll.length / after.length));
              }
              add(`${name}/${bucket}`, moved, bound);
            }
          },
        ),
        { seed: bucket === 'small' ? 11 : 12, numRuns: 1500 },
      );
    }
    const ratio = (key: string) => totals.get(key)!.moved / totals.get(key)!.bound;
    expect(ratio('BALANCED_RENDEZVOUS/large')).toBeLessThanOrEqual(1.3);
    for (const bucket of ['small', 'large']) {
      expect(ratio(`BALANCED_RENDEZVOUS/${bucket}`)).toBeLessThan(ratio(`AVG/${bucket}`));
      expect(ratio(`BALANCED_RENDEZVOUS/${bucket}`)).toBeLessThan(ratio(`AVG_BY_CIRCLE/${bucket}`));
    }
    console.info(Object.fromEntries([...totals.keys()].map((key) => [key, Number(ratio(key).toFixed(3))])));
  }, 30_000);
});
