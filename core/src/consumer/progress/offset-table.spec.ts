import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryOffsetStore, deferred } from '../runtime.fixture';
import { OffsetTable, UNCHANGED_OFFSET_REFRESH_MS } from './offset-table';

const a = { topic: 'T', brokerName: 'b', queueId: 0 };
const b = { topic: 'T', brokerName: 'b', queueId: 1 };

function setup() {
  const store = new MemoryOffsetStore();
  return { store, table: new OffsetTable(store) };
}

/** Each write as queueId=offset (with ! for a lowering entry). */
const written = (store: MemoryOffsetStore) =>
  store.writes.map((entries) => entries.map((e) => `${e.mq.queueId}=${e.offset}${e.lowering ? '!' : ''}`).sort());

afterEach(() => vi.useRealTimers());

describe('OffsetTable (RocketMQ updateOffset rules)', () => {
  it('absent: set; increaseOnly: max; otherwise overwrite', () => {
    const { table } = setup();
    expect(table.get(a)).toBe(-1);
    table.update(a, 10, true);
    expect(table.get(a)).toBe(10);
    table.update(a, 5, true);
    expect(table.get(a)).toBe(10);
    table.update(a, 5, false);
    expect(table.get(a)).toBe(5);
    table.remove(a);
    expect(table.has(a)).toBe(false);
  });

  it('a value read from the store is held as acknowledged: nothing to write until it moves', async () => {
    const { store, table } = setup();
    store.persisted.set('T/b/1', 40);
    expect(await table.read(b)).toBe(40);
    expect(await table.read(a)).toBe(-1);
    expect(table.has(a)).toBe(false);
    table.update(b, 40, false);
    await table.write([a, b]);
    expect(store.writes).toEqual([]);
    table.update(b, 41, true);
    await table.write([a, b]);
    expect(written(store)).toEqual([['1=41']]);
  });

  it('writes a reset as a lowering entry until the store acknowledged it, progress after it included', async () => {
    const { store, table } = setup();
    table.update(a, 100, true);
    await table.write([a]);
    table.reset(a, 40);
    table.update(a, 45, true);
    store.failWrite = new Error('down');
    await expect(table.write([a])).rejects.toThrow('down');
    store.failWrite = undefined;
    await table.write([a]);
    table.update(a, 46, true);
    await table.write([a]);
    expect(written(store)).toEqual([['0=100'], ['0=45!'], ['0=45!'], ['0=46']]);
  });
});

describe('OffsetTable writes', () => {
  it('changed offsets at every write, unchanged ones only once they went UNCHANGED_OFFSET_REFRESH_MS unwritten', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { store, table } = setup();
    store.persisted.set('T/b/1', 40);
    table.update(a, 10, true);
    expect(await table.read(b)).toBe(40);
    await table.write([a, b]);
    // b was read from the store: it holds that value already.
    expect(written(store)).toEqual([['0=10']]);
    await table.write([a, b]);
    expect(store.writes).toHaveLength(1);
    table.update(a, 11, true);
    await table.write([a, b]);
    expect(written(store)).toEqual([['0=10'], ['0=11']]);
    vi.setSystemTime(Date.now() + UNCHANGED_OFFSET_REFRESH_MS);
    await table.write([a, b]);
    expect(written(store)[2]).toEqual(['0=11', '1=40']);
    await table.write([a, b]);
    expect(store.writes).toHaveLength(3);
  });

  it('every offset, changed or not, when asked for unchanged ones too (after a route change)', async () => {
    const { store, table } = setup();
    store.persisted.set('T/b/1', 40);
    table.update(a, 10, true);
    await table.read(b);
    await table.write([a, b]);
    await table.write([a, b], true);
    expect(written(store)).toEqual([['0=10'], ['0=10', '1=40']]);
  });

  it('what a failed write carried is written again at the next one; a queue listed twice is one entry', async () => {
    const { store, table } = setup();
    table.update(a, 5, true);
    store.failWrite = new Error('broker down');
    await expect(table.write([a, a])).rejects.toThrow('broker down');
    store.failWrite = undefined;
    await table.write([a]);
    expect(written(store)).toEqual([['0=5'], ['0=5']]);
    expect(store.stored(a)).toBe(5);
  });

  it('a value that moved while its write was under way stays to be written', async () => {
    const { store, table } = setup();
    table.update(a, 5, true);
    store.gate = deferred();
    const first = table.write([a]);
    table.update(a, 7, true);
    store.gate.resolve();
    await first;
    store.gate = undefined;
    await table.write([a]);
    expect(written(store)).toEqual([['0=5'], ['0=7']]);
  });
});
