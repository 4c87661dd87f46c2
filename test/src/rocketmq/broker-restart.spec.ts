import { createProducer, type ConsumeContext, type Message } from '@mqkit/core';
import { Deliveries, uniqueName, waitFor } from '@mqkit/core/testing';
import type { RocketMqCluster } from '@mqkit/transport-rocketmq/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerClass } from '../support/fixtures';
import { RocketMqHarness, testCluster } from '../support/rocketmq-fixtures';

let cluster: RocketMqCluster;
let harness: RocketMqHarness;
beforeAll(async () => {
  cluster = await testCluster();
  harness = new RocketMqHarness(cluster);
});
afterAll(async () => {
  await harness?.close();
  // Leave the run's shared cluster whole even when the test failed half way.
  if (cluster.managed && cluster.brokers.some((b) => b.pid === undefined)) await cluster.startBroker('broker-b');
}, 180_000);

describe('a broker restart on a real cluster', () => {
  it('mid-stream: every acknowledged message is consumed', async () => {
    const topic = uniqueName('restart');
    const group = uniqueName('g');
    await harness.createTopic(topic, 4);
    const seen = new Deliveries();
    let fromBrokerB = 0;
    const Handler = consumerClass(
      { group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', consumeThreadMax: 8 },
      (m: Message<{ seq: number }>, ctx: ConsumeContext) => {
        if (ctx.mq.brokerName === 'broker-b') fromBrokerB++;
        seen.record(m.payload.seq);
      },
    );
    await harness.app([Handler]);
    const producer = await createProducer({ transport: harness.transport(), group: uniqueName('p'), profile: 'fast' });
    const acked = new Set<number>();
    let failed = 0;
    let seq = 0;
    let producing = true;
    const flow = (async () => {
      while (producing) {
        const batch = Array.from({ length: 20 }, () => seq++);
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
      await waitFor(() => seen.unique >= 500, { timeoutMs: 30_000 });
      const stoppedAt = Date.now();
      await cluster.stopBroker('broker-b');
      await waitFor(() => seen.unique >= acked.size - 50 && acked.size > 1_000, {
        timeoutMs: 60_000,
        message: () => `${seen.unique}/${acked.size} during the outage`,
      });
      await cluster.startBroker('broker-b');
      const restartedIn = Date.now() - stoppedAt;
      const fromBrokerBBeforeRestart = fromBrokerB;
      // New sends reach broker-b again once the route has it back.
      const ackedAtRestart = acked.size;
      await waitFor(() => acked.size >= ackedAtRestart + 1_000, { timeoutMs: 60_000 });
      producing = false;
      await flow;
      await waitFor(() => [...acked].every((s) => seen.counts.has(s)), {
        timeoutMs: 60_000,
        message: () =>
          `${[...acked].filter((s) => !seen.counts.has(s)).length} acknowledged messages not consumed (restart took ${restartedIn} ms)`,
      });
      expect([...acked].filter((s) => !seen.counts.has(s))).toEqual([]);
      // broker-b came back into the route and served its queues again.
      expect(fromBrokerB).toBeGreaterThan(fromBrokerBBeforeRestart);
      // Whatever failed to send was reported to the producer, never silently dropped.
      expect(acked.size + failed).toBe(seq);
    } finally {
      producing = false;
      await flow;
      await producer.stop();
    }
  }, 240_000);
});
