import { describe, expect, it, vi } from 'vitest';
import { parseSubscription } from '../../model/subscription';
import { ConsumeProgress, REMEMBER_RELEASED_MS } from './consume-progress';
import { ProcessQueue } from '../queue/process-queue';
import { MQ, MemoryOffsetStore, eventsOf, processQueue, records, testGroup } from '../runtime.fixture';

function setup(pullCommits = true) {
  const group = testGroup();
  const store = new MemoryOffsetStore();
  const progress = new ConsumeProgress(group, store, pullCommits);
  const pq = processQueue(group, progress, 5);
  return { group, store, progress, pq };
}

describe('ConsumeProgress', () => {
  it('begins a queue at its start offset with a plain update (a stale higher in-memory value cannot hold it back)', async () => {
    const group = testGroup();
    const store = new MemoryOffsetStore();
    store.persisted.set('T/broker-a/0', 90);
    const progress = new ConsumeProgress(group, store, true);
    expect(await progress.read(MQ)).toBe(90);
    const pq = processQueue(group, progress, 5);
    expect([pq.progress.committable, pq.progress.persisted, progress.consumed(pq)]).toEqual([5, -1, 5]);
    await progress.persist([pq]);
    expect(store.stored()).toBe(5);
  });

  it('writes a queue that begins at the offset it read only once it moves', async () => {
    const group = testGroup();
    const store = new MemoryOffsetStore();
    store.persisted.set('T/broker-a/0', 5);
    const progress = new ConsumeProgress(group, store, true);
    expect(await progress.read(MQ)).toBe(5);
    const pq = processQueue(group, progress, 5);
    await progress.persist([pq]);
    expect(store.writes).toEqual([]);
    // Acknowledged all the same: a pull carries no commit of it.
    expect(progress.pullCommit(pq)).toBeUndefined();
    pq.put(records(5, 7), () => undefined);
    pq.clear();
    progress.advance(pq);
    await progress.persist([pq]);
    expect(store.writes).toEqual([[{ mq: MQ, offset: 7, lowering: false }]]);
  });

  it('advance follows the smallest unfinished message and never moves back', () => {
    const { progress, pq } = setup();
    const seqs: number[] = [];
    pq.put(records(5, 9), (_r, seq) => seqs.push(seq));
    pq.remove([seqs[1]!]);
    progress.advance(pq);
    expect(pq.progress.committable).toBe(5);
    pq.remove([seqs[0]!]);
    progress.advance(pq);
    expect(pq.progress.committable).toBe(7);
    pq.clear();
    progress.advance(pq);
    expect(pq.progress.committable).toBe(9);
  });

  it('skipTo moves past an empty range only while nothing is cached', () => {
    const { progress, pq } = setup();
    pq.put(records(5, 6), () => undefined);
    progress.skipTo(pq, 20);
    expect(pq.progress.committable).toBe(5);
    pq.clear();
    progress.skipTo(pq, 20);
    expect(pq.progress.committable).toBe(20);
  });

  it('with manual commits, finished work and skips move only what was consumed; commit makes it committable and persists it', async () => {
    const group = testGroup();
    const store = new MemoryOffsetStore();
    const progress = new ConsumeProgress(group, store, false, 'manual');
    const pq = processQueue(group, progress, 5);
    pq.put(records(5, 8), () => undefined);
    pq.clear();
    progress.touch(pq);
    progress.advance(pq);
    progress.skipTo(pq, 12);
    expect(progress.consumed(pq)).toBe(12);
    // A persist (the periodic one, a release) stores only what was committed: nothing yet.
    await progress.persist([pq]);
    expect(store.stored()).toBeUndefined();
    await progress.commit([pq]);
    expect(store.stored()).toBe(12);
    expect(pq.progress).toMatchObject({ committable: 12, persisted: 12 });
    // Once committed, a release stores what was committed (and nothing consumed since).
    pq.put(records(12, 15), () => undefined);
    pq.clear();
    progress.advance(pq);
    await progress.finish(pq);
    expect(store.stored()).toBe(12);
  });

  it("a pull consumer's commit, periodic persist and release store only the queues it polled or sought", async () => {
    const mq = (queueId: number) => ({ topic: 'T', brokerName: 'broker-a', queueId });
    for (const mode of ['manual', 'auto'] as const) {
      const group = testGroup();
      const store = new MemoryOffsetStore();
      const progress = new ConsumeProgress(group, store, false, mode);
      const { signal } = group;
      const polled = processQueue(group, progress, 5);
      const sought = new ProcessQueue(mq(1), parseSubscription('T', '*'), progress.begin(mq(1), 3, true), 3, signal);
      const untouched = processQueue(group, progress, 40, mq(2));
      polled.put(records(5, 8), () => undefined);
      polled.clear();
      progress.touch(polled);
      progress.advance(polled);
      // An empty range skipped on a queue nobody polled moves nothing into the store either.
      progress.skipTo(untouched, 44);
      if (mode === 'manual') await progress.commit([polled, sought, untouched]);
      else await progress.persist([polled, sought, untouched]);
      expect([store.stored(), store.stored(mq(1)), store.stored(mq(2))]).toEqual([8, 3, undefined]);
      await progress.finish(untouched, { brokerGone: true });
      expect(store.stored(mq(2))).toBeUndefined();
      expect(progress.remembered(mq(2))).toBe(-1);
    }
  });

  it('persist hands the committable offsets to the store and records what it acknowledged', async () => {
    const { store, progress, pq } = setup();
    pq.put(records(5, 8), () => undefined);
    pq.clear();
    progress.advance(pq);
    await progress.persist([pq]);
    expect(store.stored()).toBe(8);
    expect(pq.progress.persisted).toBe(8);
  });

  it('a failed persist is reported under its stage and acknowledges nothing', async () => {
    const { group, store, progress, pq } = setup();
    store.failWrite = new Error('down');
    await progress.persist([pq], 'persist-on-release');
    expect(pq.progress.persisted).toBe(-1);
    expect(eventsOf(group, 'consumer.error').map((e) => [e.where, e.error.message, e.mq])).toEqual([
      ['persist-on-release', 'down', MQ],
    ]);
  });

  it('a pull carries the committable offset only with pull commits on, when > 0 and not yet acknowledged', async () => {
    const { progress, pq } = setup();
    expect(progress.pullCommit(pq)).toBe(5);
    await progress.persist([pq]);
    expect(progress.pullCommit(pq)).toBeUndefined();
    pq.put(records(5, 7), () => undefined);
    pq.clear();
    progress.advance(pq);
    expect(progress.pullCommit(pq)).toBe(7);
    const off = setup(false);
    expect(off.progress.pullCommit(off.pq)).toBeUndefined();
    const fresh = testGroup();
    const zero = new ConsumeProgress(fresh, new MemoryOffsetStore(), true);
    expect(zero.pullCommit(processQueue(fresh, zero, 0))).toBeUndefined();
  });

  it('reset stores explicit lowering writes, persists them and forgets them in memory', async () => {
    const { store, progress, pq } = setup();
    await progress.persist([pq]);
    expect(store.stored()).toBe(5);
    await progress.reset([{ mq: MQ, offset: 2 }]);
    expect(store.stored()).toBe(2);
    expect(store.writes.at(-1)).toEqual([{ mq: MQ, offset: 2, lowering: true }]);
    // Forgotten: a persist of the queue's old handle writes it again as ordinary progress, from the start.
    await progress.persist([pq]);
    expect(store.writes.at(-1)).toEqual([{ mq: MQ, offset: 5, lowering: false }]);
  });

  it('offers a remembered queue back until the store keeps it: a restarted broker can lose one of two first writes', async () => {
    const { store, progress, pq } = setup();
    pq.put(records(5, 9), () => undefined);
    pq.clear();
    progress.advance(pq);
    await progress.finish(pq, { brokerGone: true });
    store.persisted.clear();
    // The broker acknowledges the first write and keeps nothing (another member's first write replaced the table).
    const write = store.write.bind(store);
    let lost = 1;
    store.write = async (entries) => {
      await write(entries);
      if (lost-- > 0) store.persisted.clear();
    };
    const before = store.writes.length;
    await progress.offerBack([MQ]);
    expect(store.stored()).toBe(9);
    // Written, read back missing, written again.
    expect(store.writes.length - before).toBe(2);
  });

  it("with confirm, a final commit overtaken by an older one (a pull's commit landing late) is written again", async () => {
    for (const confirm of [false, true]) {
      const { store, progress, pq } = setup();
      pq.put(records(5, 9), () => undefined);
      pq.clear();
      progress.advance(pq);
      // The broker acknowledges the final commit, then applies a commit of 6 that a pull sent before it.
      const write = store.write.bind(store);
      let stale = 1;
      store.write = async (entries) => {
        await write(entries);
        if (stale-- > 0) store.persisted.set('T/broker-a/0', 6);
      };
      await progress.finish(pq, { confirm });
      expect(store.stored()).toBe(confirm ? 9 : 6);
      // Confirmed, the queue is not remembered: the store holds what was consumed.
      expect(progress.remembered(MQ)).toBe(-1);
    }
  });

  it('remembers a released queue whose broker left the route, or whose final commit failed, and offers it back once', async () => {
    const { store, progress, pq } = setup();
    pq.put(records(5, 9), () => undefined);
    pq.clear();
    progress.advance(pq);
    await progress.finish(pq, { brokerGone: true });
    expect(progress.remembered(MQ)).toBe(9);
    // The restarted broker knows nothing of the queue: the offer writes what was consumed, without asking.
    store.persisted.clear();
    await progress.offerBack([MQ]);
    expect(store.stored()).toBe(9);
    store.persisted.set('T/broker-a/0', 2);
    await progress.offerBack([MQ]);
    expect(store.stored()).toBe(2);
    progress.begin(MQ, 9);
    expect(progress.remembered(MQ)).toBe(-1);
  });

  it('a queue released with its commit acknowledged is not remembered; one whose commit failed is offered only over a lower value', async () => {
    const { store, progress, pq } = setup();
    await progress.finish(pq);
    expect(progress.remembered(MQ)).toBe(-1);
    const failed = setup();
    failed.store.failWrite = new Error('down');
    await failed.progress.finish(failed.pq);
    expect(failed.progress.remembered(MQ)).toBe(5);
    failed.store.failWrite = undefined;
    failed.store.persisted.set('T/broker-a/0', 7);
    await failed.progress.offerBack([MQ]);
    expect(failed.store.stored()).toBe(7);
    void store;
  });

  it('a failed offer is tried again while the arrival grace lasts (the caller holds its allocation), then given up', async () => {
    vi.useFakeTimers();
    try {
      const { store, progress, pq } = setup();
      pq.put(records(5, 9), () => undefined);
      pq.clear();
      progress.advance(pq);
      await progress.finish(pq, { brokerGone: true });
      store.persisted.clear();
      store.failWrite = new Error('broker not taking writes yet');
      expect(await progress.offerBack([MQ], 2_000)).toBe(false);
      vi.advanceTimersByTime(500);
      expect(await progress.offerBack([MQ], 2_000)).toBe(false);
      store.failWrite = undefined;
      expect(await progress.offerBack([MQ], 2_000)).toBe(true);
      expect(store.stored()).toBe(9);
      // Given up once the grace since the first attempt is over: the caller allocates, and nothing is written again.
      const late = setup();
      late.pq.put(records(5, 9), () => undefined);
      late.pq.clear();
      late.progress.advance(late.pq);
      await late.progress.finish(late.pq, { brokerGone: true });
      late.store.persisted.clear();
      late.store.failWrite = new Error('still down');
      expect(await late.progress.offerBack([MQ], 2_000)).toBe(false);
      vi.advanceTimersByTime(2_000);
      expect(await late.progress.offerBack([MQ], 2_000)).toBe(true);
      late.store.failWrite = undefined;
      expect(await late.progress.offerBack([MQ], 2_000)).toBe(true);
      expect(late.store.persisted.size).toBe(0);
      expect(eventsOf(late.group, 'consumer.error').map((e) => e.where)).toEqual(['offset-offer', 'offset-offer']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('forgets remembered queues on a reset, on forget(), and after REMEMBER_RELEASED_MS', async () => {
    vi.useFakeTimers();
    try {
      const { progress, pq } = setup();
      await progress.finish(pq, { brokerGone: true });
      progress.forget([MQ]);
      expect(progress.remembered(MQ)).toBe(-1);
      const again = setup();
      await again.progress.finish(again.pq, { brokerGone: true });
      await again.progress.reset([{ mq: MQ, offset: 1 }]);
      expect(again.progress.remembered(MQ)).toBe(-1);
      const old = setup();
      await old.progress.finish(old.pq, { brokerGone: true });
      vi.advanceTimersByTime(REMEMBER_RELEASED_MS + 1);
      expect(old.progress.remembered(MQ)).toBe(-1);
    } finally {
      vi.useRealTimers();
    }
  });
});
