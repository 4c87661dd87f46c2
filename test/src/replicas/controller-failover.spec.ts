import { createProducer, type Message } from '@mqkit/core';
import { Deliveries, uniqueName, waitFor } from '@mqkit/core/testing';
import { startRocketMqCluster, type RocketMqCluster } from '@mqkit/transport-rocketmq/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerClass } from '../support/fixtures';
import { RocketMqHarness } from '../support/rocketmq-fixtures';

// RocketMQ 5's controller mode: a controller in the name server, two brokers of broker-a, sends acknowledged once
// the whole sync-state set has them (allAckInSyncStateSet).
let cluster: RocketMqCluster;
let harness: RocketMqHarness;

beforeAll(async () => {
  cluster = await startRocketMqCluster({ brokers: ['broker-a'], controller: true });
  harness = new RocketMqHarness(cluster);
}, 240_000);
afterAll(async () => {
  await harness?.close();
  await cluster?.stop();
}, 60_000);

describe('controller mode', () => {
  it('killing the master promotes the other broker; sends and consumption go on and nothing acknowledged is lost', async () => {
    const topic = uniqueName('ctrl');
    const group = uniqueName('g');
    await harness.createTopic(topic, 2);
    const seen = new Deliveries();
    const Handler = consumerClass(
      { group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
      (m: Message<{ seq: number }>) => seen.record(m.payload.seq),
    );
    await harness.app([Handler], { instanceName: uniqueName('c') });
    const producer = await createProducer({
      transport: harness.transport(),
      group: uniqueName('p'),
      profile: 'fast',
      sendMsgTimeout: 10_000,
    });
    const acked = new Set<number>();
    let failed = 0;
    let seq = 0;
    let producing = true;
    const flow = (async () => {
      while (producing) {
        const batch = Array.from({ length: 10 }, () => seq++);
        await Promise.all(
          batch.map((s) =>
            producer.send({ topic, payload: { seq: s } }).then(
              () => acked.add(s),
              () => failed++,
            ),
          ),
        );
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    try {
      await waitFor(() => seen.unique >= 300, { timeoutMs: 60_000 });
      const master = (await cluster.masterOf('broker-a'))!;
      await cluster.stopBroker(master, { force: true });
      const promoted = await cluster.waitForMaster('broker-a', { notName: master, timeoutMs: 60_000 });
      expect(promoted).not.toBe(master);
      // Sends reach the promoted master once the route names it.
      const ackedAtFailover = acked.size;
      await waitFor(() => acked.size >= ackedAtFailover + 300, {
        timeoutMs: 60_000,
        message: () => `${acked.size - ackedAtFailover} sends acknowledged after the failover (${failed} failed)`,
      });
      producing = false;
      await flow;
      await waitFor(() => [...acked].every((s) => seen.counts.has(s)), {
        timeoutMs: 60_000,
        message: () => `${[...acked].filter((s) => !seen.counts.has(s)).length} acknowledged messages not consumed`,
      });
      expect([...acked].filter((s) => !seen.counts.has(s))).toEqual([]);
      expect(acked.size + failed).toBe(seq);
      // The killed broker comes back as the new master's replica.
      await cluster.startBroker(master);
      await cluster.waitForInSync('broker-a', 2);
      expect(await cluster.masterOf('broker-a')).toBe(promoted);
    } finally {
      producing = false;
      await flow;
      await producer.stop();
    }
  }, 240_000);
});
