import { EventBus, OffsetStoreError } from '@mqkit/core';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileOffsetStore } from './file-offset-store';
import { fileOffsetStore } from './file-offset-store.provider';

const q = (queueId: number, topic = 'T') => ({ topic, brokerName: 'broker-a', queueId });
const at = (mq: ReturnType<typeof q>, offset: number) => ({ mq, offset, lowering: false });
let dir: string;
beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'mqkit-file-store-'))));
afterEach(async () => rm(dir, { recursive: true, force: true }));

function store(path = join(dir, 'offsets.json'), group = 'g') {
  return new FileOffsetStore(path, group, new EventBus());
}

describe('FileOffsetStore', () => {
  it('reads -1 for an unknown queue, then what was persisted, from a new instance', async () => {
    const a = store();
    await a.load();
    expect(await a.read(q(0))).toBe(-1);
    await a.write([at(q(0), 10), at(q(1), 7)]);
    expect(await a.read(q(0))).toBe(10);
    const b = store();
    await b.load();
    expect(await b.read(q(0))).toBe(10);
    expect(await b.read(q(1))).toBe(7);
  });

  it('keeps entries of queues it was not handed, and writes every entry as given, lowering or not', async () => {
    const a = store();
    await a.load();
    await a.write([at(q(0), 10), at(q(1), 20)]);
    await a.write([{ mq: q(0), offset: 3, lowering: true }]);
    const b = store();
    await b.load();
    expect([await b.read(q(0)), await b.read(q(1))]).toEqual([3, 20]);
    // One writer per file: an ordinary entry overwrites too (last writer wins, as in Java's LocalFileOffsetStore).
    await b.write([at(q(1), 15)]);
    expect(await store().read(q(1))).toBe(15);
  });

  it('writes atomically: no temporary file remains, and an interrupted write leaves the previous file intact', async () => {
    const path = join(dir, 'offsets.json');
    const a = store(path);
    await a.load();
    await a.write([at(q(0), 5)]);
    expect(await readdir(dir)).toEqual(['offsets.json']);
    // A crash after the temporary file was written but before the rename: the old file is what a restart sees.
    await writeFile(
      `${path}.tmp-999-1`,
      '{"version":1,"group":"g","offsets":[{"topic":"T","brokerName":"broker-a","queueId":0,"offset":9',
    );
    const b = store(path);
    await b.load();
    expect(await b.read(q(0))).toBe(5);
  });

  it('a corrupt file fails load with an OffsetStoreError naming the path and keeps a copy', async () => {
    const path = join(dir, 'offsets.json');
    await writeFile(path, 'not json');
    const error = await store(path)
      .load()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OffsetStoreError);
    expect((error as OffsetStoreError).key).toBe(path);
    expect((error as Error).message).toMatch(/is corrupt .* a copy was kept at .*offsets\.json\.corrupt-\d+/);
    const copies = (await readdir(dir)).filter((f) => f.startsWith('offsets.json.corrupt-'));
    expect(copies).toHaveLength(1);
    expect(await readFile(join(dir, copies[0]!), 'utf8')).toBe('not json');
  });

  it('rejects a file of another group, and bad entries', async () => {
    const path = join(dir, 'offsets.json');
    await writeFile(path, JSON.stringify({ version: 1, group: 'other', offsets: [] }));
    await expect(store(path).load()).rejects.toThrow(/belongs to group "other"/);
    await writeFile(
      path,
      JSON.stringify({ version: 1, group: 'g', offsets: [{ topic: 'T', brokerName: 'b', queueId: 0, offset: 'x' }] }),
    );
    await expect(store(path).load()).rejects.toThrow(/bad entry/);
  });

  it('serialises concurrent writes and stores the latest values', async () => {
    const a = store();
    await a.load();
    const writes: Promise<void>[] = [];
    for (let i = 1; i <= 20; i++) writes.push(a.write([at(q(0), i)]));
    await Promise.all(writes);
    const b = store();
    await b.load();
    expect(await b.read(q(0))).toBe(20);
  });

  it('the provider serves BROADCASTING, in <dir>/<name>/<group>/offsets.json, name defaulting to instanceName then DEFAULT', () => {
    const provider = fileOffsetStore({ dir });
    expect(provider.models).toEqual(['BROADCASTING']);
    const ctx = {
      group: 'g1',
      clientId: '1.2.3.4@x',
      messageModel: 'BROADCASTING' as const,
      container: undefined as never,
      events: new EventBus(),
      transport: undefined as never,
    };
    expect((provider.create({ ...ctx, instanceName: undefined }) as FileOffsetStore).path).toBe(
      join(dir, 'DEFAULT', 'g1', 'offsets.json'),
    );
    expect((provider.create({ ...ctx, instanceName: 'node-7' }) as FileOffsetStore).path).toBe(
      join(dir, 'node-7', 'g1', 'offsets.json'),
    );
    expect((fileOffsetStore({ dir, name: 'n' }).create({ ...ctx, instanceName: 'x' }) as FileOffsetStore).path).toBe(
      join(dir, 'n', 'g1', 'offsets.json'),
    );
  });
});
