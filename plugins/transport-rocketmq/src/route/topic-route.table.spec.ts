import { waitFor } from '@mqkit/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { RequestCode } from '../protocol/remoting-codes';
import { FakeCluster } from '../transport/fake-cluster.fixture';

let cluster: FakeCluster;
afterEach(async () => cluster?.stop());

const routeRequests = () => cluster.namesrv.requests.filter((r) => r.code === RequestCode.GET_ROUTEINFO_BY_TOPIC);

describe('TopicRouteTable', () => {
  it('reads readable and writable queues of a route, caches it, and asks in standard JSON', async () => {
    cluster = await FakeCluster.start();
    cluster.routes.set('T', [
      { name: 'broker-b', queues: 2 },
      { name: 'broker-a', queues: 1, perm: 4 },
    ]);
    const { routes } = cluster.session();
    expect(await routes.subscribeQueues('T')).toEqual([
      { topic: 'T', brokerName: 'broker-b', queueId: 0 },
      { topic: 'T', brokerName: 'broker-b', queueId: 1 },
      { topic: 'T', brokerName: 'broker-a', queueId: 0 },
    ]);
    // broker-a is read-only here: not a publish target.
    expect(await routes.publishQueues('T')).toEqual([
      { topic: 'T', brokerName: 'broker-b', queueId: 0 },
      { topic: 'T', brokerName: 'broker-b', queueId: 1 },
    ]);
    await routes.subscribeQueues('T');
    expect(routeRequests()).toHaveLength(1);
    expect(routeRequests()[0]!.extFields).toEqual({ topic: 'T', acceptStandardJsonOnly: 'true' });
    expect(routeRequests()[0]!.version).toBeGreaterThanOrEqual(401);
    expect(routes.brokerAddress('broker-b')).toBe(cluster.broker('broker-b').address);
  });

  it('an unknown topic has no queues; a consumer keeps that until the refresh, a producer asks again every time', async () => {
    cluster = await FakeCluster.start();
    const { routes } = cluster.session({ routeRefreshMs: 3_600_000 });
    expect(await routes.subscribeQueues('T')).toEqual([]);
    expect(await routes.subscribeQueues('T')).toEqual([]);
    expect(routeRequests()).toHaveLength(1);
    expect(await routes.publishQueues('T')).toEqual([]);
    // TBW102 asked too: a broker with autoCreateTopicEnable would route it.
    expect(routeRequests().map((r) => r.extFields.topic)).toEqual(['T', 'T', 'TBW102']);
  });

  it('a route with no writable queue (a broker name between masters) is asked for again on every send, until one is', async () => {
    cluster = await FakeCluster.start();
    // Read-only, as a name without its master is for a producer.
    cluster.routes.set('T', [{ name: 'broker-a', queues: 2, perm: 4 }]);
    const { routes } = cluster.session({ routeRefreshMs: 3_600_000 });
    expect(await routes.publishQueues('T')).toEqual([]);
    expect(await routes.publishQueues('T')).toEqual([]);
    cluster.routes.set('T', [{ name: 'broker-a', queues: 2 }]);
    expect(await routes.publishQueues('T')).toHaveLength(2);
    const asked = routeRequests().filter((r) => r.extFields.topic === 'T').length;
    expect(await routes.publishQueues('T')).toHaveLength(2);
    // Writable again: served from the cache.
    expect(routeRequests().filter((r) => r.extFields.topic === 'T')).toHaveLength(asked);
    expect(asked).toBe(3);
  });

  it('while a broker that left a route is not back, routes are asked for every second instead of every refreshMs', async () => {
    cluster = await FakeCluster.start();
    cluster.routes.set('T', [
      { name: 'broker-a', queues: 1 },
      { name: 'broker-b', queues: 1 },
    ]);
    const session = cluster.session({ routeRefreshMs: 3_600_000 });
    const { routes } = session;
    const changes: string[] = [];
    routes.changes$.subscribe((t) => changes.push(t));
    await routes.subscribeQueues('T');
    session.start();
    // broker-b crashes: a lost connection makes a member ask at once, and it sees the broker gone.
    cluster.routes.set('T', [{ name: 'broker-a', queues: 1 }]);
    await routes.fetch('T');
    expect(changes).toEqual(['T']);
    // Back: found by the one-second watch, not by the hourly refresh.
    cluster.routes.set('T', [
      { name: 'broker-a', queues: 1 },
      { name: 'broker-b', queues: 1 },
    ]);
    await waitFor(() => changes.length === 2, { timeoutMs: 5_000, message: 'broker-b back in the route' });
    expect((await routes.subscribeQueues('T')).map((q) => q.brokerName)).toEqual(['broker-a', 'broker-b']);
    // Nothing missing any more: the watch ends.
    const asked = routeRequests().length;
    await new Promise((r) => setTimeout(r, 2_500));
    expect(routeRequests().length).toBeLessThanOrEqual(asked + 1);
    await session.close();
  });

  it('a lost connection to a routed broker makes routes be asked for within a second (a member with no queue there learns too)', async () => {
    cluster = await FakeCluster.start();
    cluster.routes.set('T', [
      { name: 'broker-a', queues: 1 },
      { name: 'broker-b', queues: 1 },
    ]);
    const session = cluster.session({ routeRefreshMs: 3_600_000 });
    const { routes } = session;
    await routes.subscribeQueues('T');
    session.start();
    const asked = routeRequests().length;
    routes.brokerConnectionLost('10.9.9.9:1');
    routes.brokerConnectionLost(cluster.broker('broker-b').address);
    await waitFor(() => routeRequests().length > asked, {
      timeoutMs: 3_000,
      message: 'a refresh after the lost connection',
    });
    await session.close();
  });

  it('falls back to TBW102 for sends to a topic without a route, capped at 4 queues per broker', async () => {
    cluster = await FakeCluster.start();
    cluster.routes.set('TBW102', [{ name: 'broker-a', queues: 8, perm: 7 }]);
    const { routes } = cluster.session({ routeRefreshMs: 3_600_000 });
    expect((await routes.publishQueues('NEW')).map((q) => `${q.brokerName}/${q.queueId}`)).toEqual([
      'broker-a/0',
      'broker-a/1',
      'broker-a/2',
      'broker-a/3',
    ]);
    expect(routes.brokerAddress('broker-a')).toBe(cluster.broker('broker-a').address);
    expect(await routes.subscribeQueues('NEW')).toEqual([]);
  });

  it('the periodic refresh announces a topic that appears, grows or loses a broker, and nothing when unchanged', async () => {
    cluster = await FakeCluster.start();
    const session = cluster.session({ routeRefreshMs: 30 });
    const { routes } = session;
    const changes: string[] = [];
    routes.changes$.subscribe((t) => changes.push(t));
    session.start();
    expect(await routes.subscribeQueues('T')).toEqual([]);
    await new Promise((r) => setTimeout(r, 100));
    expect(changes).toEqual([]);
    cluster.routes.set('T', [{ name: 'broker-a', queues: 1 }]);
    await waitFor(() => changes.length === 1);
    cluster.routes.set('T', [
      { name: 'broker-a', queues: 2 },
      { name: 'broker-b', queues: 2 },
    ]);
    await waitFor(() => changes.length === 2);
    expect(await routes.subscribeQueues('T')).toHaveLength(4);
    cluster.routes.set('T', [
      { name: 'broker-b', queues: 2 },
      { name: 'broker-a', queues: 2 },
    ]); // same route, other order
    await new Promise((r) => setTimeout(r, 100));
    expect(changes).toEqual(['T', 'T']);
  });

  it('announces each broker address once when a route first names it: first route, TBW102 fallback, a broker new or back', async () => {
    cluster = await FakeCluster.start(['broker-a', 'broker-b', 'broker-c']);
    cluster.routes.set('TBW102', [{ name: 'broker-c', queues: 4, perm: 7 }]);
    cluster.routes.set('T', [{ name: 'broker-a', queues: 1 }]);
    cluster.routes.set('U', [{ name: 'broker-a', queues: 1 }]);
    const { routes } = cluster.session({ routeRefreshMs: 3_600_000 });
    const seen: string[][] = [];
    routes.brokersSeen$.subscribe((addresses) => seen.push([...addresses]));
    const a = cluster.broker('broker-a').address;
    const b = cluster.broker('broker-b').address;
    const c = cluster.broker('broker-c').address;
    await routes.publishQueues('T');
    expect(seen).toEqual([[a]]);
    // Another topic on the same broker, the same route again, and more sends: nothing new.
    await routes.publishQueues('U');
    await routes.fetch('T');
    await routes.publishQueues('T');
    expect(seen).toEqual([[a]]);
    // A topic not created yet: its sends go to TBW102's brokers.
    await routes.publishQueues('NEW');
    expect(seen).toEqual([[a], [c]]);
    cluster.routes.set('T', [
      { name: 'broker-a', queues: 1 },
      { name: 'broker-b', queues: 1 },
    ]);
    await routes.fetch('T');
    expect(seen).toEqual([[a], [c], [b]]);
    cluster.routes.set('T', [{ name: 'broker-a', queues: 1 }]);
    await routes.fetch('T');
    cluster.routes.set('T', [
      { name: 'broker-a', queues: 1 },
      { name: 'broker-b', queues: 1 },
    ]);
    await routes.fetch('T');
    expect(seen).toEqual([[a], [c], [b], [b]]);
  });

  it('closes the connection of a broker no route names any more (cleanOfflineBroker)', async () => {
    cluster = await FakeCluster.start();
    cluster.routes.set('T', [
      { name: 'broker-a', queues: 1 },
      { name: 'broker-b', queues: 1 },
    ]);
    const session = cluster.session();
    await session.routes.subscribeQueues('T');
    await session.request(cluster.broker('broker-b').address, { code: 28 });
    expect(session.remoting.addresses).toContain(cluster.broker('broker-b').address);
    cluster.routes.set('T', [{ name: 'broker-a', queues: 1 }]);
    await session.routes.fetch('T');
    await waitFor(() => !session.remoting.addresses.includes(cluster.broker('broker-b').address));
    expect(session.routes.brokerAddress('broker-b')).toBeUndefined();
  });

  it('keeps the last route when a refresh fails, and reports the failure', async () => {
    cluster = await FakeCluster.start();
    cluster.routes.set('T', [{ name: 'broker-a', queues: 3 }]);
    const session = cluster.session({ routeRefreshMs: 30, requestTimeoutMs: 200 });
    const failures: string[] = [];
    session.events.on('rocketmq.error', (e) => failures.push(e.where));
    expect(await session.routes.subscribeQueues('T')).toHaveLength(3);
    session.start();
    await cluster.namesrv.stop();
    await waitFor(() => failures.includes('route-refresh T'));
    expect(await session.routes.subscribeQueues('T')).toHaveLength(3);
    session.routes.invalidate('T');
    expect(await session.routes.subscribeQueues('T')).toHaveLength(3);
  });

  it('invalidate makes the next use ask again, and a difference is announced', async () => {
    cluster = await FakeCluster.start();
    cluster.routes.set('T', [{ name: 'broker-a', queues: 1 }]);
    const { routes } = cluster.session({ routeRefreshMs: 3_600_000 });
    const changes: string[] = [];
    routes.changes$.subscribe((t) => changes.push(t));
    await routes.publishQueues('T');
    cluster.routes.set('T', [{ name: 'broker-a', queues: 2 }]);
    expect(await routes.publishQueues('T')).toHaveLength(1);
    routes.invalidate('T');
    expect(await routes.publishQueues('T')).toHaveLength(2);
    expect(changes).toEqual(['T']);
  });

  it('a topic refreshed by many callers at once is asked for once', async () => {
    cluster = await FakeCluster.start();
    cluster.routes.set('T', [{ name: 'broker-a', queues: 1 }]);
    const { routes } = cluster.session();
    await Promise.all(Array.from({ length: 20 }, () => routes.subscribeQueues('T')));
    expect(routeRequests()).toHaveLength(1);
  });
});
