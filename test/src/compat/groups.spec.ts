import type { ConsumerApp, Message } from '@mqkit/core';
import { Deliveries, uniqueName, waitFor } from '@mqkit/core/testing';
import { fileOffsetStore } from '@mqkit/offset-store-file';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { consumerClass } from '../support/fixtures';
import { useCompat } from './compat-context';

const harness = useCompat();
const queueOf = (mq: { queueId: number }) => mq.queueId;

describe('ORDERLY, with queue locks', () => {
  it('two members keep every queue in offset order, one call per queue at a time, each owned queue locked at the broker', async () => {
    const topic = uniqueName('cOrderly');
    const group = uniqueName('gOrderly');
    await harness().createTopic(topic, 4);
    const log = new Map<number, number[]>();
    const running = new Map<number, number>();
    let overlap = 0;
    const Handler = consumerClass(
      { group, topic, consumeMode: 'ORDERLY', consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
      async (m: Message<{ seq: number }>, ctx) => {
        const q = queueOf(ctx.mq);
        running.set(q, (running.get(q) ?? 0) + 1);
        if (running.get(q)! > 1) overlap++;
        await new Promise((r) => setImmediate(r));
        log.set(q, [...(log.get(q) ?? []), m.queueOffset]);
        running.set(q, running.get(q)! - 1);
      },
    );
    const apps: ConsumerApp[] = [await harness().app([Handler]), await harness().app([Handler])];
    await harness().produce(topic, 400);
    const handled = () => [...log.values()].reduce((n, l) => n + new Set(l).size, 0);
    await waitFor(() => handled() === 400, { timeoutMs: 60_000, message: () => `${handled()}/400` });
    expect(overlap).toBe(0);
    for (const [queue, offsets] of log)
      expect(
        offsets.every((o, i) => i === 0 || o > offsets[i - 1]!),
        `queue ${queue} out of order`,
      ).toBe(true);
    const ownedOf = (a: ConsumerApp) =>
      a
        .consumer(group)
        .status()
        .queues.filter((q) => q.mq.topic === topic);
    await waitFor(() => apps.every((a) => ownedOf(a).length === 2), {
      message: () => JSON.stringify(apps.map((a) => ownedOf(a).map((q) => q.mq.queueId))),
    });
    const owned = apps.flatMap((a) => ownedOf(a).map((q) => q.mq));
    expect(await (await harness().adminApp()).transport.locks!.lock(group, owned)).toEqual([]);
  });
});

describe('Broadcasting', () => {
  it('every member gets every message, each keeping its own offsets', async () => {
    const topic = uniqueName('cBroadcast');
    const group = uniqueName('gBroadcast');
    await harness().createTopic(topic, 2);
    const dir = await mkdtemp(join(tmpdir(), 'mqkit-compat-broadcast-'));
    const members: ConsumerApp[] = [];
    try {
      const seen = [new Deliveries(), new Deliveries()];
      for (const [i, deliveries] of seen.entries())
        members.push(
          await harness().app(
            [
              consumerClass(
                { group, topic, messageModel: 'BROADCASTING', consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
                (m: Message<{ seq: number }>) => deliveries.record(m.payload.seq),
              ),
            ],
            { offsetStore: fileOffsetStore({ dir, name: `member-${i}` }) },
          ),
        );
      await harness().produce(topic, 100);
      await waitFor(() => seen.every((s) => s.unique === 100), {
        timeoutMs: 60_000,
        message: () => seen.map((s) => s.unique).join(', '),
      });
      expect(seen.map((s) => s.missing(100))).toEqual([[], []]);
    } finally {
      await Promise.all(members.map((m) => m.stop()));
      await rm(dir, { recursive: true, force: true });
    }
  });
});
