import { describe, expect, it } from 'vitest';
import { mqKey, type MessageQueue } from '../model/message-queue';
import { ConsumeProgress } from '../consumer/progress/consume-progress';
import { MQ, MemoryOffsetStore, processQueue, records, testGroup } from '../consumer/runtime.fixture';
import type { LegacyOffsetStore, PersistOptions, ReadOffsetFrom } from '../spi/legacy-offset-store';
import { describeOffsetStoreContract } from '../testing/offset-store.contract';
import { LEGACY_OFFSET_STORE_WARNING, adaptOffsetStore, isLegacyOffsetStore } from './legacy-offset-store.adapter';

/**
 * A third-party store written against the former interface: its own in-memory table with dirty flags, persisted
 * into a shared map (its "database"), where an ordinary commit only raises a value and a reset writes it as given.
 */
class OldStyleStore implements LegacyOffsetStore {
  readonly calls: string[] = [];
  private readonly table = new Map<string, { mq: MessageQueue; offset: number; dirty: boolean; lowering: boolean }>();

  constructor(private readonly db: Map<string, number>) {}

  async load(): Promise<void> {}
  async read(mq: MessageQueue, from: ReadOffsetFrom): Promise<number> {
    this.calls.push(`read ${from}`);
    if (from === 'memory-then-store' && this.table.has(mqKey(mq))) return this.table.get(mqKey(mq))!.offset;
    return this.db.get(mqKey(mq)) ?? -1;
  }
  update(mq: MessageQueue, offset: number, options: { increaseOnly: boolean }): void {
    this.calls.push(`update ${offset} ${options.increaseOnly}`);
    const entry = this.table.get(mqKey(mq));
    if (entry && options.increaseOnly && offset <= entry.offset) return;
    this.table.set(mqKey(mq), { mq, offset, dirty: entry?.offset !== offset, lowering: entry?.lowering ?? false });
  }
  reset(mq: MessageQueue, offset: number): void {
    this.calls.push(`reset ${offset}`);
    this.table.set(mqKey(mq), { mq, offset, dirty: true, lowering: true });
  }
  async persist(mqs: Iterable<MessageQueue>, options?: PersistOptions): Promise<void> {
    this.calls.push(`persist ${options?.unchanged === true ? 'unchanged' : 'dirty'}`);
    for (const mq of mqs) {
      const entry = this.table.get(mqKey(mq));
      if (!entry || (!entry.dirty && !options?.unchanged)) continue;
      const stored = this.db.get(mqKey(mq)) ?? -1;
      if (entry.lowering || entry.offset > stored) this.db.set(mqKey(mq), entry.offset);
      entry.dirty = false;
      entry.lowering = false;
    }
  }
  remove(mq: MessageQueue): void {
    this.table.delete(mqKey(mq));
  }
}

describe('adaptOffsetStore', () => {
  it('tells the former interface from the new one', () => {
    const old = new OldStyleStore(new Map());
    expect(isLegacyOffsetStore(old)).toBe(true);
    expect(isLegacyOffsetStore(new MemoryOffsetStore())).toBe(false);
    // A store that offers both during its own migration is taken as a new one.
    expect(isLegacyOffsetStore(Object.assign(old, { write: async () => undefined }) as LegacyOffsetStore)).toBe(false);
  });

  it('returns a new store as it is, wraps a legacy one and warns once per process, with a code', async () => {
    const warnings: Error[] = [];
    const listener = (warning: Error) => warnings.push(warning);
    process.on('warning', listener);
    try {
      const store = new MemoryOffsetStore();
      expect(adaptOffsetStore(store, 'memory')).toBe(store);
      const old = new OldStyleStore(new Map());
      const wrapped = adaptOffsetStore(old, 'my-store');
      expect(wrapped).not.toBe(old);
      adaptOffsetStore(new OldStyleStore(new Map()), 'my-store');
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ name: 'DeprecationWarning', code: LEGACY_OFFSET_STORE_WARNING });
      expect(warnings[0]!.message).toMatch(/"my-store" implements the former OffsetStore interface/);
    } finally {
      process.off('warning', listener);
    }
  });

  it("hands ConsumeProgress's writes to update or reset, then persist with unchanged: true; reads from the store", async () => {
    const db = new Map([[mqKey(MQ), 3]]);
    const old = new OldStyleStore(db);
    const group = testGroup();
    const progress = new ConsumeProgress(group, adaptOffsetStore(old, 'old'), false);
    expect(await progress.read(MQ)).toBe(3);
    const pq = processQueue(group, progress, 3);
    pq.put(records(3, 8), () => undefined);
    pq.clear();
    progress.advance(pq);
    await progress.persist([pq]);
    expect(db.get(mqKey(MQ))).toBe(8);
    await progress.reset([{ mq: MQ, offset: 2 }]);
    expect(db.get(mqKey(MQ))).toBe(2);
    expect(old.calls).toEqual(['read store', 'update 8 false', 'persist unchanged', 'reset 2', 'persist unchanged']);
  });
});

// The contract suite takes a legacy store too and runs it through the same adapter.
describe('a legacy store through the adapter', () =>
  describeOffsetStoreContract('legacy (adapted)', {
    holdsBadData: false,
    backend: () => {
      const db = new Map<string, number>();
      return { group: 'legacy', createStore: () => new OldStyleStore(db) };
    },
  }));
