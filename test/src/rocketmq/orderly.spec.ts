import { mqKey, type ConsumerApp } from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerClass } from '../support/fixtures';
import { RocketMqHarness, testCluster } from '../support/rocketmq-fixtures';

let harness: RocketMqHarness;
beforeAll(async () => {
  harness = new RocketMqHarness(await testCluster());
});
afterAll(async () => harness?.close());

describe('ORDERLY consumption on a real cluster', () => {
  it('keeps per-queue order over joins and leaves, one batch per queue at a time, each owned queue locked at the broker', async () => {
    const topic = uniqueName('orderly');
    const group = uniqueName('g');
    await harness.createTopic(topic, 3);
    const log = new Map<string, number[]>(); // queue -> offsets in delivery order, across every instance
    const running = new Map<string, number>();
    let overlap = 0;
    let delivered = 0;
    const Handler = consumerClass(
      {
        group,
        topic,
        consumeMode: 'ORDERLY',
        consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
        batch: true,
        consumeMessageBatchMaxSize: 4,
      },
      async (batch: { queueOffset: number }[], ctx: { mq: { topic: string; brokerName: string; queueId: number } }) => {
        const key = mqKey(ctx.mq);
        running.set(key, (running.get(key) ?? 0) + 1);
        if (running.get(key)! > 1) overlap++;
        await new Promise((r) => setImmediate(r));
        const list = log.get(key) ?? [];
        for (const m of batch) list.push(m.queueOffset);
        log.set(key, list);
        delivered += batch.length;
        running.set(key, running.get(key)! - 1);
      },
    );
    // The members each app's last rebalance of the topic saw, for the failure message.
    const members = new Map<string, readonly string[]>();
    const app = async () => {
      const a = await harness.app([Handler]);
      a.on('consumer.rebalance', (e) => void (e.topic === topic && members.set(a.clientId, e.cidAll)));
      return a;
    };
    const apps: ConsumerApp[] = [await app(), await app()];
    const total = 3_000;
    const producing = harness.produce(topic, total);
    await waitFor(() => delivered > 600, { timeoutMs: 30_000 });
    apps.push(await app());
    await waitFor(() => delivered > 1_300, { timeoutMs: 30_000 });
    await apps.shift()!.stop();
    await waitFor(() => delivered > 2_000, { timeoutMs: 30_000 });
    apps.push(await app());
    await producing;
    await waitFor(() => [...log.values()].reduce((n, l) => n + new Set(l).size, 0) === total, {
      timeoutMs: 30_000,
      message: () => `${[...log.values()].reduce((n, l) => n + new Set(l).size, 0)}/${total}`,
    });
    expect(overlap).toBe(0);
    expect(log.size).toBe(6);
    for (const [queue, offsets] of log) {
      // Strictly increasing: a handoff that went back even one batch (an old commit landing late) fails here.
      const increasing = offsets.every((o, i) => i === 0 || o > offsets[i - 1]!);
      expect(increasing, `queue ${queue.replaceAll('\u0000', '/')} delivered out of order or twice`).toBe(true);
      expect(offsets[0]).toBe(0);
    }
    // Every owned queue is locked at the broker by its owner: another client id gets none of them.
    const ownedOf = (a: ConsumerApp) =>
      a
        .consumer(group)
        .status()
        .queues.filter((q) => q.mq.topic === topic);
    await waitFor(() => apps.every((a) => ownedOf(a).length === 2), {
      message: () =>
        JSON.stringify(
          apps.map((a) => [
            a.clientId,
            ownedOf(a).map((q) => `${q.mq.brokerName}/${q.mq.queueId}`),
            members.get(a.clientId),
          ]),
        ),
    });
    const intruder = (await harness.adminApp()).transport.locks!;
    const owned = apps.flatMap((a) => ownedOf(a).map((q) => q.mq));
    expect(owned).toHaveLength(6);
    expect(await intruder.lock(group, owned)).toEqual([]);
  }, 120_000);
});
