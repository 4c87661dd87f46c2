import { describe, expect, it } from 'vitest';
import type { MessageQueue } from '../../model/message-queue';
import { SubscribedRoutes } from './subscribed-routes';

const q = (brokerName: string, queueId: number, topic = 'T'): MessageQueue => ({ topic, brokerName, queueId });

describe('SubscribedRoutes', () => {
  it('a topic without a route is missing once, routed once when it appears, and all its queues are late', () => {
    const routes = new SubscribedRoutes();
    expect(routes.observe('T', [], 0)).toEqual({ kind: 'missing' });
    expect(routes.observe('T', [], 1_000)).toBeUndefined();
    expect(routes.unrouted()).toEqual(['T']);
    expect(routes.observe('T', [q('a', 0), q('b', 0)], 3_000)).toEqual({ kind: 'routed', missingMs: 3_000 });
    expect(routes.observe('T', [q('a', 0), q('b', 0)], 4_000)).toBeUndefined();
    expect(routes.unrouted()).toEqual([]);
    expect(routes.routedLate(q('a', 0))).toBe(true);
    expect(routes.routedLate(q('b', 0))).toBe(true);
    // Read from the last lookup that still lacked them on.
    expect(routes.lateSince(q('a', 0))).toBe(1_000);
  });

  it('the queues of an existing topic are not late; those added later are, and a returning queue stays what it was', () => {
    const routes = new SubscribedRoutes();
    expect(routes.observe('T', [q('a', 0)], 0)).toBeUndefined();
    expect(routes.routedLate(q('a', 0))).toBe(false);
    // Grown: a new queue, and a new broker.
    routes.observe('T', [q('a', 0), q('a', 1), q('b', 0)], 10);
    expect(routes.routedLate(q('a', 1))).toBe(true);
    expect(routes.routedLate(q('b', 0))).toBe(true);
    expect(routes.lateSince(q('a', 1))).toBe(0);
    expect(routes.lateSince(q('a', 0))).toBeUndefined();
    // Broker a leaves the route (crashed) and comes back: its queue 0 is no newer than before.
    routes.observe('T', [q('b', 0)], 20);
    routes.observe('T', [q('a', 0), q('a', 1), q('b', 0)], 30);
    expect(routes.routedLate(q('a', 0))).toBe(false);
    // Every broker gone: missing again, and routed again when one is back.
    expect(routes.observe('T', [], 40)).toEqual({ kind: 'missing' });
    expect(routes.observe('T', [q('a', 0)], 100)).toEqual({ kind: 'routed', missingMs: 60 });
    // A topic never looked up says nothing.
    expect(routes.routedLate(q('a', 0, 'U'))).toBe(false);
  });

  it('a topic no longer subscribed is forgotten: subscribed again, its next lookup is a first one', () => {
    const routes = new SubscribedRoutes();
    routes.observe('T', [], 0);
    routes.observe('U', [], 0);
    routes.retain(new Set(['U']));
    expect(routes.unrouted()).toEqual(['U']);
    expect(routes.observe('T', [q('a', 0)], 10)).toBeUndefined();
    expect(routes.routedLate(q('a', 0))).toBe(false);
  });
});
