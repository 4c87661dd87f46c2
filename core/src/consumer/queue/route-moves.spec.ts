import { describe, expect, it } from 'vitest';
import type { MessageQueue } from '../../model/message-queue';
import { RouteMoves } from './route-moves';

const q = (brokerName: string, queueId: number): MessageQueue => ({ topic: 'T', brokerName, queueId });
const both = [q('a', 0), q('a', 1), q('b', 0), q('b', 1)];
const onlyA = [q('a', 0), q('a', 1)];

describe('RouteMoves', () => {
  it('reports when the route changed under the same members, until the members change', () => {
    const moves = new RouteMoves();
    expect(moves.observe('T', both, ['m1', 'm2'], 1_000)).toBeUndefined(); // the first look
    expect(moves.observe('T', both, ['m1', 'm2'], 2_000)).toBeUndefined(); // nothing changed
    expect(moves.observe('T', onlyA, ['m1', 'm2'], 3_000)).toBe(3_000); // broker b left
    expect(moves.observe('T', onlyA, ['m1', 'm2'], 4_000)).toBe(3_000); // a retry pass: still that move
    expect(moves.observe('T', both, ['m1', 'm2'], 5_000)).toBe(5_000); // b is back: another move
    expect(moves.observe('T', both, ['m1', 'm2', 'm3'], 6_000)).toBeUndefined(); // a member joined
    expect(moves.observe('T', onlyA, ['m1'], 7_000)).toBeUndefined(); // both at once: the broker tells everyone
  });

  it('keeps topics apart and forgets the ones no longer subscribed', () => {
    const moves = new RouteMoves();
    moves.observe('T', both, ['m1'], 1_000);
    moves.observe('U', both, ['m1'], 1_000);
    expect(moves.observe('T', onlyA, ['m1'], 2_000)).toBe(2_000);
    expect(moves.observe('U', both, ['m1'], 2_000)).toBeUndefined();
    moves.retain(new Set(['T']));
    expect(moves.observe('U', onlyA, ['m1'], 3_000)).toBeUndefined(); // a first look again
  });
});
