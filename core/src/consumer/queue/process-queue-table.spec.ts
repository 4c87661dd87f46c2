import { afterEach, describe, expect, it } from 'vitest';
import type { MessageQueue } from '../../model/message-queue';
import { PullStatus, type PullResult } from '../../model/pull-result';
import { parseSubscription } from '../../model/subscription';
import type { MessagePuller, QueueLocks } from '../../spi/transport.roles';
import { ConcurrentConsumeService } from '../delivery/concurrent-consume.service';
import type { ConsumeContext } from '../../spi/consume-context';
import { ConsumeProgress } from '../progress/consume-progress';
import { HandlerInvoker } from '../delivery/handler-invoker';
import { ProcessQueueTable } from './process-queue-table';
import { QueueLockManager } from './queue-lock-manager';
import { MQ, MemoryOffsetStore, binding, deferred, eventsOf, queueWork, records, testGroup } from '../runtime.fixture';

const q = (queueId: number): MessageQueue => ({ ...MQ, queueId });

/** Each queue gets its records once, then long polls that end only on abort. */
function onceThenHold(perQueue: number): MessagePuller & { pulls: PullResult[] } {
  const served = new Set<number>();
  const pulls: PullResult[] = [];
  return {
    pulls,
    pull: (request, signal) =>
      new Promise((resolve, reject) => {
        if (!served.has(request.mq.queueId) && request.offset < perQueue) {
          served.add(request.mq.queueId);
          const result: PullResult = {
            status: PullStatus.FOUND,
            nextBeginOffset: perQueue,
            minOffset: 0,
            maxOffset: perQueue,
            messages: records(request.offset, perQueue, request.mq),
          };
          pulls.push(result);
          resolve(result);
          return;
        }
        signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
      }),
  };
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function setup(
  options: Parameters<typeof testGroup>[0],
  handler: (m: unknown, ctx: unknown) => unknown,
  extra: {
    locks?: QueueLocks;
    start?: (mq: MessageQueue, progress: ConsumeProgress) => Promise<number>;
    perQueue?: number;
    profile?: Parameters<typeof testGroup>[2];
  } = {},
) {
  const group = testGroup(options, ['consumer.error', 'consumer.queue-released'], extra.profile);
  const store = new MemoryOffsetStore();
  const progress = new ConsumeProgress(group, store, false);
  const invoker = new HandlerInvoker(group, new Map([['T', binding(handler)]]), []);
  const work = queueWork(group, progress, invoker);
  const consume = new ConcurrentConsumeService(group, invoker, work, undefined);
  const locks = extra.locks ? new QueueLockManager(group, extra.locks) : undefined;
  const rebalances: number[] = [];
  const table = new ProcessQueueTable(
    group,
    {
      subscriptions: new Map([['T', parseSubscription('T', '*')]]),
      progress,
      work,
      consume,
      puller: onceThenHold(extra.perQueue ?? 3),
      locks,
      startOffset: (mq) => (extra.start ? extra.start(mq, progress) : Promise.resolve(0)),
    },
    {
      whenRunning: () => undefined,
      requestRebalance: () => void rebalances.push(1),
      onAssignmentChanged: () => undefined,
    },
  );
  cleanups.push(() => {
    group.controller.abort();
    consume.close();
  });
  return { group, store, table, rebalances, consume, progress };
}

describe('ProcessQueueTable', () => {
  it('after a route change, persists every owned queue of the topic, unchanged offsets included (the broker behind a queue may be another)', async () => {
    const { store, table } = setup({}, () => undefined);
    await table.applyAllocation('T', [q(0), q(1)]);
    await expect.poll(() => table.statuses().map((s) => s.committableOffset)).toEqual([3, 3]);
    await table.persistOwned();
    expect(store.writtenQueueIds()).toEqual([[0, 1]]);
    await table.persistOwned();
    await table.beforeAllocation('T', [q(0), q(1)], false);
    expect(store.writes).toHaveLength(1);
    await table.beforeAllocation('T', [q(0), q(1)], true);
    expect(store.writtenQueueIds()).toEqual([
      [0, 1],
      [0, 1],
    ]);
  });

  it('adds allocated queues at their start offsets and pulls them; a removed queue is drained, committed and reported', async () => {
    const { group, store, table } = setup({}, () => undefined, { start: async (mq) => (mq.queueId === 1 ? 1 : 0) });
    const first = await table.applyAllocation('T', [q(0), q(1)]);
    expect(first).toMatchObject({ changed: true, complete: true });
    expect(first.added).toHaveLength(2);
    await expect.poll(() => table.statuses().map((s) => s.committableOffset)).toEqual([3, 3]);
    const second = await table.applyAllocation('T', [q(1)]);
    expect(second.removed).toEqual([q(0)]);
    expect(store.stored(q(0))).toBe(3);
    expect(eventsOf(group, 'consumer.queue-released')).toMatchObject([
      { mq: q(0), offset: 3, drained: true, abandoned: 0 },
    ]);
    expect(table.statuses().map((s) => s.mq)).toEqual([q(1)]);
  });

  it('a release waits for running calls until its deadline, then aborts their signal and commits below them', async () => {
    const gate = deferred();
    let signal: AbortSignal | undefined;
    const { store, table } = setup({}, async (m, ctx) => {
      if ((m as { queueOffset: number }).queueOffset === 1) {
        signal = (ctx as ConsumeContext).signal;
        await gate.promise;
      }
    });
    await table.applyAllocation('T', [q(0)]);
    await expect.poll(() => signal).toBeDefined();
    const [report] = await table.releaseAll(Date.now() + 50);
    expect(report).toMatchObject({ drained: false, abandoned: 1, offset: 1 });
    expect(signal!.aborted).toBe(true);
    expect(store.stored(q(0))).toBe(1);
    gate.resolve();
  });

  it('under locks a queue is added only when its lock is granted, and unlocked after its final commit', async () => {
    const log: string[] = [];
    const { store, table } = setup({ exclusiveHandoff: true }, () => undefined, {
      locks: {
        lock: async (_g, mqs) => {
          log.push(`lock ${mqs.map((m) => m.queueId).join(',')}`);
          return mqs.filter((m) => m.queueId !== 1);
        },
        unlock: async (_g, mqs) => {
          log.push(`unlock ${mqs.map((m) => m.queueId).join(',')} after commit ${store.stored(mqs[0]!)}`);
        },
      },
    });
    const result = await table.applyAllocation('T', [q(0), q(1)]);
    expect(result).toMatchObject({ complete: false, added: [q(0)] });
    await expect.poll(() => table.statuses()[0]?.committableOffset).toBe(3);
    await table.releaseAll(Date.now() + 1_000);
    expect(log).toEqual(['lock 0', 'lock 1', 'unlock 0 after commit 3']);
  });

  it('a reset drops the queue, stores the new offset as an explicit lowering write, and asks for a rebalance', async () => {
    const { store, table, rebalances } = setup({}, () => undefined);
    await table.applyAllocation('T', [q(0)]);
    await expect.poll(() => table.statuses()[0]?.committableOffset).toBe(3);
    await table.persistOwned();
    expect(store.stored(q(0))).toBe(3);
    await table.resetOffsets([{ mq: q(0), offset: 1 }]);
    expect(table.size).toBe(0);
    expect(store.stored(q(0))).toBe(1);
    expect(rebalances).toEqual([1]);
  });

  it('a queue added while a reset is being stored starts at the reset offset, not at the one read before it landed', async () => {
    // The first start reads 0; later ones read 3, what the store held before the reset was persisted.
    let starts = 0;
    const { table } = setup({}, () => undefined, { start: async () => (starts++ === 0 ? 0 : 3) });
    await table.applyAllocation('T', [q(0)]);
    await expect.poll(() => table.statuses()[0]?.committableOffset).toBe(3);
    await table.persistOwned();
    // The pushed reset drops the queue at once and then stores offset 1; a rebalance running meanwhile (another
    // trigger) takes the queue again with the offset it read before the write.
    const resetting = table.resetOffsets([{ mq: q(0), offset: 1 }]);
    await table.applyAllocation('T', [q(0)]);
    await resetting;
    expect(starts).toBe(2);
    expect(table.statuses().map((s) => s.committableOffset)).toEqual([1]);
  });

  it('a queue whose start offset cannot be read is not added; the error names the stage', async () => {
    const { group, table } = setup({}, () => undefined, { start: async () => Promise.reject(new Error('store down')) });
    const result = await table.applyAllocation('T', [q(0)]);
    expect(result).toMatchObject({ changed: false, complete: false });
    expect(eventsOf(group, 'consumer.error').map((e) => [e.where, e.error.message])).toEqual([
      ['start-offset', 'store down'],
    ]);
  });

  it('once the group stopped, nothing is added', async () => {
    const { group, table } = setup({}, () => undefined);
    group.controller.abort();
    expect(await table.applyAllocation('T', [q(0)])).toMatchObject({ changed: false, complete: false });
  });

  it('a queue whose broker left the route is released with what it consumed remembered; taken back, it starts there', async () => {
    const { store, table, progress } = setup({}, () => undefined, {
      start: async (mq, p) => Math.max(p.remembered(mq), store.stored(mq) ?? 0),
    });
    await table.applyAllocation('T', [q(0), q(1)], [q(0), q(1)]);
    await expect.poll(() => table.statuses().map((s) => s.committableOffset)).toEqual([3, 3]);
    store.failWrite = new Error('broker gone');
    // q(1) is no longer routed at all (its broker crashed): released, its final commit fails.
    await table.applyAllocation('T', [q(0)], [q(0)]);
    expect(progress.remembered(q(1))).toBe(3);
    store.failWrite = undefined;
    store.persisted.clear();
    await table.applyAllocation('T', [q(0), q(1)], [q(0), q(1)]);
    expect(table.statuses().find((s) => s.mq.queueId === 1)?.nextOffset).toBe(3);
    // A queue moved to another member (still routed) is not remembered.
    await table.applyAllocation('T', [q(0)], [q(0), q(1)]);
    expect(progress.remembered(q(1))).toBe(-1);
  });

  it('a queue routed after the first look, that another member consumed last, is taken only once routed for the grace', async () => {
    const graceMs = 200;
    const { table } = setup({}, () => undefined, { profile: { routeArrivalGraceMs: graceMs } });
    // The first route: every queue counts as always there.
    expect(await table.applyAllocation('T', [q(0)], [q(0)])).toMatchObject({ complete: true, added: [q(0)] });
    // q(1)'s broker comes back: allocated to this member, but its previous owner's offset write comes first.
    const arrived = Date.now();
    expect(await table.applyAllocation('T', [q(0), q(1)], [q(0), q(1)])).toMatchObject({
      changed: false,
      complete: false,
    });
    expect(table.statuses().map((s) => s.mq.queueId)).toEqual([0]);
    await expect
      .poll(async () => (await table.applyAllocation('T', [q(0), q(1)], [q(0), q(1)])).complete, {
        timeout: 5_000,
        interval: 20,
      })
      .toBe(true);
    expect(Date.now() - arrived).toBeGreaterThanOrEqual(graceMs);
    expect(table.statuses().map((s) => s.mq.queueId)).toEqual([0, 1]);
  });

  it('a queue a route change moved here from another member is taken only after the grace; a membership change at once', async () => {
    const graceMs = 200;
    const { table, store } = setup({}, () => undefined, {
      profile: { routeArrivalGraceMs: graceMs },
      start: async (mq, p) => Math.max(p.remembered(mq), store.stored(mq) ?? 0),
    });
    expect(await table.applyAllocation('T', [q(0)], [q(0), q(1), q(2), q(3)])).toMatchObject({ added: [q(0)] });
    // q(2)'s broker left; the members stayed, so q(1), another member's until now, moves here by the new route.
    const routed = [q(0), q(1), q(3)];
    const movedAt = Date.now();
    expect(await table.applyAllocation('T', [q(0), q(1)], routed, movedAt)).toMatchObject({
      changed: false,
      complete: false,
    });
    expect(table.statuses().map((s) => s.mq.queueId)).toEqual([0]);
    await expect
      .poll(async () => (await table.applyAllocation('T', [q(0), q(1)], routed, movedAt)).complete, {
        timeout: 5_000,
        interval: 20,
      })
      .toBe(true);
    expect(Date.now() - movedAt).toBeGreaterThanOrEqual(graceMs);
    expect(table.statuses().map((s) => s.mq.queueId)).toEqual([0, 1]);
    // Without a route move (a membership change: every member hears of it at once) a new queue is taken at once.
    expect(await table.applyAllocation('T', [q(0), q(1), q(3)], routed)).toMatchObject({
      complete: true,
      added: [q(3)],
    });
  });
});
