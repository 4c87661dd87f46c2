import { BrokerError, createProducer, type Message } from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import { memoryTransport } from '@mqkit/transport-memory';
import { fastBroker } from '@mqkit/transport-memory/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { Harness, consumerClass } from '../support/fixtures';

let harness: Harness;
afterEach(async () => harness?.close());

describe('timer messages on the embedded broker', () => {
  it("are delivered when due at the broker's time scale, never before, waking held pulls", async () => {
    // Time scale 1: real delays.
    harness = new Harness(fastBroker({ delayTimeScale: 1 }));
    const topic = uniqueName('T');
    harness.broker.createTopic({ topic, queues: 1 });
    const arrived = new Map<string, number>();
    const offsets = new Map<string, number>();
    await harness.app([
      consumerClass({ group: uniqueName('g'), topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' }, (m: Message) => {
        arrived.set(m.body.toString(), Date.now());
        offsets.set(m.body.toString(), m.queueOffset);
      }),
    ]);
    const producer = await createProducer({
      transport: memoryTransport({ broker: harness.broker }),
      group: uniqueName('p'),
    });
    const sentAt = Date.now();
    await producer.send({ topic, body: 'at', deliverTimeMs: sentAt + 400 });
    await producer.send({ topic, body: 'ms', delayTimeMs: 200 });
    await producer.send({ topic, body: 'now' });
    await producer.stop();
    await waitFor(() => arrived.size === 3);
    expect(arrived.get('ms')! - sentAt).toBeGreaterThanOrEqual(200);
    expect(arrived.get('at')!).toBeGreaterThanOrEqual(sentAt + 400);
    // Stored when due, whatever the send order: the untimed message first, then by due time.
    expect([offsets.get('now'), offsets.get('ms'), offsets.get('at')]).toEqual([0, 1, 2]);
  });

  it('a broker without the timer wheel, and a delay beyond timerMaxDelaySec, refuse naming the broker setting', async () => {
    harness = new Harness(fastBroker({ timerWheelEnable: false }));
    const topic = uniqueName('T');
    harness.broker.createTopic({ topic, queues: 1 });
    const off = await createProducer({
      transport: memoryTransport({ broker: harness.broker }),
      group: uniqueName('p'),
    });
    const refusal = await off.send({ topic, body: 'x', delayTimeSec: 1 }).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(BrokerError);
    expect((refusal as BrokerError).message).toContain('timerWheelEnable=true');
    expect((refusal as BrokerError).retriable).toBe(false);
    await off.stop();
    const bounded = fastBroker({ timerMaxDelaySec: 60 });
    bounded.createTopic({ topic, queues: 1 });
    const producer = await createProducer({ transport: memoryTransport({ broker: bounded }), group: uniqueName('p') });
    const tooLong = await producer.send({ topic, body: 'x', delayTimeSec: 61 }).catch((e: unknown) => e);
    expect((tooLong as BrokerError).message).toContain('timerMaxDelaySec');
    await producer.stop();
    bounded.close();
  });
});
