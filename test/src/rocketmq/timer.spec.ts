import { BrokerError, createProducer, type Message } from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import type { RocketMqCluster } from '@mqkit/transport-rocketmq/testing';
import { describe, expect, it } from 'vitest';
import { consumerClass } from '../support/fixtures';
import { RocketMqHarness, updateBrokerConfig, useRocketMqHarness } from '../support/rocketmq-fixtures';

let cluster: RocketMqCluster;
let harness: RocketMqHarness;
useRocketMqHarness((c, h) => {
  cluster = c;
  harness = h;
});

const producer = () =>
  createProducer({ transport: harness.transport(), group: uniqueName('p'), profile: 'fast', sendMsgTimeout: 10_000 });

describe('timer messages on a real broker (timerWheelEnable=true, timerPrecisionMs 1000)', () => {
  it('deliverTimeMs, delayTimeMs and delayTimeSec are delivered when due: never early, late by at most the precision plus slack', async () => {
    const topic = uniqueName('timer');
    await harness.createTopic(topic, 2);
    const arrived = new Map<string, number>();
    await harness.app([
      consumerClass(
        { group: uniqueName('g'), topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
        (m: Message) => void arrived.set(m.body.toString(), Date.now()),
      ),
    ]);
    const p = await producer();
    const due = new Map<string, number>();
    try {
      const base = Date.now();
      due.set('at', base + 4_000);
      await p.send({ topic, body: 'at', deliverTimeMs: base + 4_000 });
      due.set('ms', Date.now() + 2_500);
      await p.send({ topic, body: 'ms', delayTimeMs: 2_500 });
      due.set('sec', Date.now() + 3_000);
      await p.send({ topic, body: 'sec', delayTimeSec: 3 });
    } finally {
      await p.stop();
    }
    await waitFor(() => arrived.size === 3, { timeoutMs: 30_000 });
    const lateness = Object.fromEntries([...due].map(([k, d]) => [k, arrived.get(k)! - d]));
    for (const [key, late] of Object.entries(lateness)) {
      // The broker files a message in the slot its due time rounds down to (HookUtils.transformTimerMessage) and
      // reads a slot one precision after it starts: never early, late by up to a precision plus the trip
      // (0.2-1.0 s in 9 deliveries here). The slack is for a loaded box.
      expect(late, key).toBeGreaterThanOrEqual(0);
      expect(late, key).toBeLessThanOrEqual(1_000 + 4_000);
    }
  }, 60_000);

  it('a delay beyond timerMaxDelaySec is refused naming the setting, and so is any timer when the wheel is off', async () => {
    const topic = uniqueName('timerbad');
    await harness.createTopic(topic, 1);
    const p = await producer();
    try {
      const tooLong = await p.send({ topic, body: 'x', delayTimeSec: 3 * 24 * 3600 + 3600 }).catch((e: unknown) => e);
      expect(tooLong).toBeInstanceOf(BrokerError);
      expect((tooLong as BrokerError).responseCode).toBe(13);
      expect((tooLong as BrokerError).message).toContain('timerMaxDelaySec');
      await updateBrokerConfig(cluster, { timerWheelEnable: 'false' });
      try {
        const off = await p.send({ topic, body: 'x', delayTimeMs: 1_000 }).catch((e: unknown) => e);
        expect(off).toBeInstanceOf(BrokerError);
        expect((off as BrokerError).message).toContain('timerWheelEnable=true');
        expect((off as BrokerError).retriable).toBe(false);
      } finally {
        await updateBrokerConfig(cluster, { timerWheelEnable: 'true' });
      }
    } finally {
      await p.stop();
    }
  }, 60_000);
});
