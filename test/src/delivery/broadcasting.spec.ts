import { OffsetStoreError, createConsumerApp } from '@mqkit/core';
import { Deliveries, uniqueName, waitFor } from '@mqkit/core/testing';
import { fileOffsetStore } from '@mqkit/offset-store-file';
import { memoryTransport } from '@mqkit/transport-memory';
import { mkdtemp, readdir, readFile, writeFile, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Harness, consumerClass } from '../support/fixtures';

let harness: Harness;
let dir: string;
beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'mqkit-broadcast-'))));
afterEach(async () => {
  await harness?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('BROADCASTING', () => {
  it('delivers every message to every instance and resumes from its file after a restart', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 4 });
    const seen = [new Deliveries(), new Deliveries(), new Deliveries()];
    const apps = [];
    for (let i = 0; i < 3; i++) {
      const Handler = consumerClass(
        { group, topic, messageModel: 'BROADCASTING', consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
        (m) => seen[i]!.record(m.payload.seq),
      );
      apps.push({
        Handler,
        app: await harness.app([Handler], { offsetStore: fileOffsetStore({ dir, name: `member-${i}` }) }),
      });
    }
    await harness.produce(topic, 1_000);
    await waitFor(() => seen.every((s) => s.unique === 1_000));
    expect(seen.map((s) => s.duplicates)).toEqual([0, 0, 0]);
    // Each instance owns every queue.
    for (const { app } of apps)
      expect(
        app
          .consumer(group)
          .status()
          .queues.filter((q) => q.mq.topic === topic),
      ).toHaveLength(4);
    // Restart member 0 from its file: it gets only what was sent while it was away.
    await apps[0]!.app.stop();
    const file = JSON.parse(await readFile(join(dir, 'member-0', group, 'offsets.json'), 'utf8'));
    expect(file.offsets.reduce((n: number, e: { offset: number }) => n + e.offset, 0)).toBe(1_000);
    await harness.produce(topic, 200, { from: 1_000 });
    const before = seen[0]!.total;
    await harness.app([apps[0]!.Handler], { offsetStore: fileOffsetStore({ dir, name: 'member-0' }) });
    await waitFor(() => seen[0]!.unique === 1_200);
    expect(seen[0]!.total - before).toBe(200);
    // The broker keeps no offsets for a broadcasting group.
    expect(harness.broker.queryConsumerOffset(group, { topic, brokerName: 'broker-a', queueId: 0 })).toBe(-1);
  }, 30_000);

  it('a corrupt offsets file fails start with an error naming the path and keeps a copy of it', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 1 });
    const path = join(dir, 'solo', group, 'offsets.json');
    await mkdir(join(dir, 'solo', group), { recursive: true });
    await writeFile(path, '{"version":1,"group":"x","offs');
    const Handler = consumerClass({ group, topic, messageModel: 'BROADCASTING' }, () => undefined);
    const app = await createConsumerApp({
      transport: memoryTransport({ broker: harness.broker }),
      consumers: [Handler],
      offsetStore: fileOffsetStore({ dir, name: 'solo' }),
      profile: 'fast',
    });
    const error = await app.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OffsetStoreError);
    expect((error as Error).message).toContain(path);
    expect((error as OffsetStoreError).key).toBe(path);
    const files = await readdir(join(dir, 'solo', group));
    expect(files.some((f) => f.startsWith('offsets.json.corrupt-'))).toBe(true);
    expect(await readFile(path, 'utf8')).toBe('{"version":1,"group":"x","offs'); // left as it was
    expect(harness.broker.consumerIds(group)).toEqual([]);
    expect(app.state).toBe('stopped');
  });
});
