import { Subject } from 'rxjs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AllocateMessageQueueAveragely } from '../../allocation/averagely.strategy';
import type { MessageQueue } from '../../model/message-queue';
import type { GroupMembership, RouteResolver } from '../../spi/transport.roles';
import { expectTimeline } from '../../util/fake-time.fixture';
import { RebalanceService, type RebalanceTarget } from './rebalance.service';
import { MQ, deferred, eventsOf, testGroup } from '../runtime.fixture';

const q = (brokerName: string, queueId: number): MessageQueue => ({ topic: 'T', brokerName, queueId });

function setup(options: { broadcasting?: boolean; cids?: string[]; queues?: MessageQueue[]; topics?: string[] } = {}) {
  const group = testGroup(
    options.broadcasting ? { messageModel: 'BROADCASTING' } : {},
    ['consumer.error', 'consumer.rebalance', 'consumer.topic-missing', 'consumer.topic-routed'],
    { rebalanceIntervalMs: 60_000, rebalanceRetryMs: 50, rebalanceMinGapMs: 0, unroutedLookupMs: 2_000 },
  );
  const notices = new Subject<string>();
  const routeChanges = new Subject<string>();
  let queues = options.queues ?? [q('broker-b', 1), q('broker-a', 1), q('broker-a', 0), q('broker-b', 0)];
  let cids = options.cids ?? ['127.0.0.1@spec', '127.0.0.1@other'];
  const lookups = { asked: 0, invalidated: [] as string[] };
  const routes: RouteResolver = {
    subscribeQueues: async (topic) => {
      if (topic !== 'T') return [];
      lookups.asked++;
      return queues;
    },
    publishQueues: async () => [],
    invalidate: (topic) => lookups.invalidated.push(topic),
    changes$: routeChanges,
  };
  const membership: GroupMembership = {
    heartbeat: async () => undefined,
    unregister: async () => undefined,
    consumerIds: async () => cids,
    changes$: notices,
  };
  const applied: MessageQueue[][] = [];
  const movedAt: (number | undefined)[] = [];
  let owned: MessageQueue[] = [];
  let complete = true;
  let gate: Promise<void> | undefined;
  let readyToAllocate = true;
  const target: RebalanceTarget = {
    topics: () => options.topics ?? ['T'],
    applyAllocation: async (_topic, allocated, _mqAll, routeMovedAt) => {
      applied.push([...allocated]);
      movedAt.push(routeMovedAt);
      await gate;
      const key = (m: MessageQueue) => `${m.brokerName}/${m.queueId}`;
      const added = allocated.filter((m) => !owned.some((o) => key(o) === key(m)));
      const removed = owned.filter((o) => !allocated.some((m) => key(o) === key(m)));
      owned = [...allocated];
      return { changed: added.length + removed.length > 0, complete, added, removed };
    },
    beforeAllocation: async () => readyToAllocate,
    dropUnsubscribed: async () => undefined,
    queuesChanged: () => undefined,
  };
  const service = new RebalanceService(group, target, {
    strategy: new AllocateMessageQueueAveragely(),
    routes,
    membership,
  });
  stops.push(() => group.controller.abort());
  return {
    group,
    service,
    applied,
    movedAt,
    lookups,
    notices,
    routeChanges,
    setQueues: (next: MessageQueue[]) => (queues = next),
    setCids: (next: string[]) => (cids = next),
    setComplete: (next: boolean) => (complete = next),
    setReadyToAllocate: (next: boolean) => (readyToAllocate = next),
    hold: () => {
      const d = deferred();
      gate = d.promise;
      return () => {
        gate = undefined;
        d.resolve();
      };
    },
  };
}

const stops: (() => void)[] = [];
afterEach(() => {
  for (const s of stops.splice(0)) s();
  vi.useRealTimers();
});

describe('RebalanceService', () => {
  it('allocates over sorted queues and sorted client ids, as every member does, and reports a change once', async () => {
    const { service, applied, group } = setup();
    service.start();
    await vi.waitFor(() => expect(service.completedPasses).toBe(1));
    // Sorted ids: "127.0.0.1@other" < "127.0.0.1@spec", so this member is the second: it gets the second half.
    expect(applied).toEqual([[q('broker-b', 0), q('broker-b', 1)]]);
    const [event] = eventsOf(group, 'consumer.rebalance');
    expect(event).toMatchObject({
      topic: 'T',
      strategy: 'AVG',
      cidAll: ['127.0.0.1@other', '127.0.0.1@spec'],
      added: [q('broker-b', 0), q('broker-b', 1)],
      removed: [],
    });
    expect(event!.mqAll).toEqual([q('broker-a', 0), q('broker-a', 1), q('broker-b', 0), q('broker-b', 1)]);
  });

  it('a membership notice rebalances at once; notices during a pass cause exactly one more pass', async () => {
    vi.useFakeTimers();
    const { service, applied, notices, setCids, hold } = setup();
    service.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(service.completedPasses).toBe(1);
    const release = hold();
    setCids(['127.0.0.1@spec']);
    notices.next('g');
    await vi.advanceTimersByTimeAsync(0);
    expect(applied).toHaveLength(2);
    notices.next('g');
    notices.next('g');
    notices.next('other-group');
    release();
    // The held pass and the one the notices asked for; then nothing else is pending: the next pass is the 60 s timer's.
    await expectTimeline(
      () => service.completedPasses,
      [
        [0, 3],
        [59_000, 3],
        [1_000, 4],
      ],
    );
    expect(applied.at(-1)).toHaveLength(4);
  });

  it('a route change of a subscribed topic rebalances', async () => {
    const { service, applied, routeChanges, setQueues } = setup({ cids: ['127.0.0.1@spec'] });
    service.start();
    await vi.waitFor(() => expect(applied).toHaveLength(1));
    setQueues([MQ]);
    routeChanges.next('T');
    await vi.waitFor(() => expect(applied).toHaveLength(2));
    expect(applied[1]).toEqual([MQ]);
  });

  it('tells the target when a route change, not a member, moved queues between the members', async () => {
    const { service, applied, movedAt, routeChanges, notices, setQueues, setCids } = setup();
    service.start();
    await vi.waitFor(() => expect(applied).toHaveLength(1));
    const before = Date.now();
    setQueues([q('broker-a', 0), q('broker-a', 1)]);
    routeChanges.next('T');
    await vi.waitFor(() => expect(applied).toHaveLength(2));
    setCids(['127.0.0.1@spec']);
    notices.next('g');
    await vi.waitFor(() => expect(applied).toHaveLength(3));
    expect(movedAt[0]).toBeUndefined();
    expect(movedAt[1]).toBeGreaterThanOrEqual(before);
    expect(movedAt[2]).toBeUndefined();
  });

  it('a pass that is not balanced (a queue not taken) is tried again after rebalanceRetryMs, until it is', async () => {
    vi.useFakeTimers();
    const { service, setComplete } = setup();
    setComplete(false);
    service.start();
    await expectTimeline(
      () => service.completedPasses,
      [
        [0, 1],
        [49, 1],
        [1, 2],
      ],
    );
    // Readiness counts only balanced passes: none yet.
    expect(service.balancedPasses).toBe(0);
    setComplete(true);
    await expectTimeline(
      () => service.completedPasses,
      [
        [50, 3],
        [500, 3],
      ],
    );
    expect(service.balancedPasses).toBe(1);
  });

  it('allocates nothing while the target is not ready to (an offset offer to retry), and retries after rebalanceRetryMs', async () => {
    vi.useFakeTimers();
    const { service, applied, setReadyToAllocate } = setup();
    setReadyToAllocate(false);
    service.start();
    await expectTimeline(
      () => service.completedPasses,
      [
        [0, 1],
        [49, 1],
        [1, 2],
      ],
    );
    expect(applied).toHaveLength(0);
    expect(service.balancedPasses).toBe(0);
    setReadyToAllocate(true);
    await expectTimeline(
      () => service.completedPasses,
      [
        [50, 3],
        [500, 3],
      ],
    );
    expect(applied).toHaveLength(1);
    expect(service.balancedPasses).toBe(1);
  });

  it('BROADCASTING takes every queue whatever the members', async () => {
    const { service, applied } = setup({ broadcasting: true });
    service.start();
    await vi.waitFor(() => expect(applied).toHaveLength(1));
    expect(applied[0]).toHaveLength(4);
  });

  it('stops with the group signal; idle() waits for the pass that was running', async () => {
    vi.useFakeTimers();
    const { service, group, notices, hold, applied } = setup();
    const release = hold();
    service.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(applied).toHaveLength(1);
    group.controller.abort();
    let idle = false;
    const done = service.idle().then(() => (idle = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(idle).toBe(false);
    release();
    await done;
    notices.next('g');
    await vi.advanceTimersByTimeAsync(120_000);
    expect(applied).toHaveLength(1);
  });

  it('a topic without a route: reported once, looked up past the cache after 1 s then every 2 s, allocated when it appears', async () => {
    vi.useFakeTimers();
    const { service, group, applied, lookups, setQueues } = setup({ cids: ['127.0.0.1@spec'], queues: [] });
    service.start();
    await vi.advanceTimersByTimeAsync(0);
    // Ready: no route counts as balanced, as in RocketMQ; the status and one event say why nothing is owned.
    expect(service.balancedPasses).toBe(1);
    expect(service.unroutedTopics()).toEqual(['T']);
    expect(eventsOf(group, 'consumer.topic-missing')).toEqual([{ group: 'g', clientId: '127.0.0.1@spec', topic: 'T' }]);
    expect(applied).toEqual([]);
    await expectTimeline(
      () => lookups.asked,
      [
        [999, 1],
        [1, 2],
        [1_999, 2],
        [1, 3],
        [2_000, 4],
      ],
    );
    expect(lookups.invalidated).toEqual(['T', 'T', 'T']);
    // Lookups, not passes; and the topic is still reported once.
    expect(service.completedPasses).toBe(1);
    expect(eventsOf(group, 'consumer.topic-missing')).toHaveLength(1);
    const created = [q('broker-a', 0), q('broker-a', 1)];
    setQueues(created);
    // No route change is announced (a transport without changes$ would not): the lookup itself asks for a pass.
    await vi.advanceTimersByTimeAsync(2_000);
    expect(applied).toEqual([created]);
    expect(service.unroutedTopics()).toEqual([]);
    expect(eventsOf(group, 'consumer.topic-routed')).toEqual([
      { group: 'g', clientId: '127.0.0.1@spec', topic: 'T', queues: created, missingMs: 7_000 },
    ]);
    expect(created.every((mq) => service.routedLate(mq))).toBe(true);
    // The fast lookups stop once the route is there.
    const asked = lookups.asked;
    await vi.advanceTimersByTimeAsync(30_000);
    expect(lookups.asked).toBe(asked);
  });

  it("an existing topic's queues are not late; a queue added to its route later is", async () => {
    const { service, applied, routeChanges, setQueues } = setup({
      cids: ['127.0.0.1@spec'],
      queues: [q('broker-a', 0)],
    });
    service.start();
    await vi.waitFor(() => expect(applied).toHaveLength(1));
    expect(service.unroutedTopics()).toEqual([]);
    expect(service.routedLate(q('broker-a', 0))).toBe(false);
    setQueues([q('broker-a', 0), q('broker-a', 1)]);
    routeChanges.next('T');
    await vi.waitFor(() => expect(applied).toHaveLength(2));
    expect(service.routedLate(q('broker-a', 0))).toBe(false);
    expect(service.routedLate(q('broker-a', 1))).toBe(true);
  });

  it('stopping ends the lookups of a topic without a route', async () => {
    vi.useFakeTimers();
    const { service, group, lookups } = setup({ queues: [] });
    service.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(lookups.asked).toBe(1);
    group.controller.abort();
    await service.idle();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(lookups.asked).toBe(1);
  });

  it('the retry topic is looked up while it has no route, but neither listed nor reported: it comes with the topic', async () => {
    vi.useFakeTimers();
    const { service, group, lookups } = setup({ topics: ['T', '%RETRY%g'], cids: ['127.0.0.1@spec'] });
    service.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(service.unroutedTopics()).toEqual([]);
    expect(eventsOf(group, 'consumer.topic-missing')).toEqual([]);
    expect(lookups.invalidated).toEqual([]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(lookups.invalidated).toEqual(['%RETRY%g']);
  });
});
