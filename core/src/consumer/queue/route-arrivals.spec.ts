import { describe, expect, it } from 'vitest';
import { mqKey, type MessageQueue } from '../../model/message-queue';
import { RouteArrivals } from './route-arrivals';

const q = (brokerName: string, queueId: number): MessageQueue => ({ topic: 'T', brokerName, queueId });

describe('RouteArrivals', () => {
  it('the first non-empty route is never arriving; a queue routed later is, for the grace, and again after it left', () => {
    const arrivals = new RouteArrivals();
    expect(arrivals.observe('T', [], 1_000, 0)).toEqual(new Set());
    expect(arrivals.observe('T', [q('a', 0)], 1_000, 10)).toEqual(new Set());
    expect(arrivals.observe('T', [q('a', 0), q('b', 0)], 1_000, 20)).toEqual(new Set([mqKey(q('b', 0))]));
    expect(arrivals.observe('T', [q('a', 0), q('b', 0)], 1_000, 1_019)).toEqual(new Set([mqKey(q('b', 0))]));
    expect(arrivals.observe('T', [q('a', 0), q('b', 0)], 1_000, 1_020)).toEqual(new Set());
    // b leaves the route (crashed) and comes back: arriving again.
    expect(arrivals.observe('T', [q('a', 0)], 1_000, 2_000)).toEqual(new Set());
    expect(arrivals.observe('T', [q('a', 0), q('b', 0)], 1_000, 3_000)).toEqual(new Set([mqKey(q('b', 0))]));
    // Topics are apart.
    expect(arrivals.observe('U', [q('b', 0)], 1_000, 3_000)).toEqual(new Set());
  });
});
