import { describe, expect, it } from 'vitest';
import { ConsumeProgress } from './consume-progress';
import { MQ, MemoryOffsetStore, eventsOf, processQueue, records, testGroup } from './runtime.fixture';

function setup(pullCommits = true) {
  const group = testGroup();
  const store = new MemoryOffsetStore();
  const progress = new ConsumeProgress(group, store, pullCommits);
  const pq = processQueue(group, progress, 5);
  return { group, store, progress, pq };
}

describe('ConsumeProgress', () => {
  it('begins a queue at its start offset with a plain update (a stale higher in-memory value cannot hold it back)', () => {
    const group = testGroup();
    const store = new MemoryOffsetStore();
    store.update(MQ, 90, { increaseOnly: false });
    const progress = new ConsumeProgress(group, store, true);
    expect(progress.begin(MQ, 5)).toEqual({ committable: 5, persisted: -1 });
    expect(store.table.get(MQ)).toBe(5);
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
    store.failPersist = new Error('down');
    await progress.persist([pq], 'persist-on-release');
    expect(pq.progress.persisted).toBe(-1);
    expect(eventsOf(group, 'consumer.error').map((e) => [e.where, e.error.message, e.mq])).toEqual([['persist-on-release', 'down', MQ]]);
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
    expect(store.table.has(MQ)).toBe(false);
  });
});
