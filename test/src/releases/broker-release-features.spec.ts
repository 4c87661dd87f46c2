import { createPullConsumer, createProducer, type Message } from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import { BrokerReleaseError, rocketmqTransport } from '@mqkit/transport-rocketmq';
import { createTopic, startRocketMqCluster, type RocketMqCluster } from '@mqkit/transport-rocketmq/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { BrokerProbe } from '../producer-cluster/producer-cluster.fixture';

/**
 * Features a broker release lacks are refused before the send, naming the release; where it has them they work.
 * One single-broker cluster per release, started by this file (4.9.7: no timer wheel; 5.3.3: no priority; 5.4.0:
 * priority messages).
 */
const clusters = new Map<string, Promise<RocketMqCluster>>();
function cluster(version: string): Promise<RocketMqCluster> {
  let started = clusters.get(version);
  if (!started) {
    started = startRocketMqCluster({ version, brokers: ['broker-a'] });
    clusters.set(version, started);
  }
  return started;
}
afterAll(async () => {
  for (const started of clusters.values()) await (await started.catch(() => undefined))?.stop();
}, 120_000);

async function producerOn(c: RocketMqCluster) {
  return createProducer({
    transport: rocketmqTransport({ nameServer: c.namesrvAddr }),
    group: uniqueName('releaseProducer'),
    sendMsgTimeout: 10_000,
  });
}

/** Sends `message` and returns what the send threw. */
async function refusal(c: RocketMqCluster, message: Parameters<Awaited<ReturnType<typeof producerOn>>['send']>[0]) {
  const producer = await producerOn(c);
  try {
    await producer.send(message);
  } catch (error) {
    return error;
  } finally {
    await producer.stop();
  }
  return undefined;
}

describe('what a broker release lacks is refused, naming the release', () => {
  it('a timer message to a 4.9.7 broker is refused: 4.x would deliver it at once', async () => {
    const c = await cluster('4.9.7');
    const topic = uniqueName('timer49');
    await createTopic(c, topic, { queues: 1 });
    const error = await refusal(c, { topic, body: 'later', delayTimeSec: 60 });
    expect(error).toBeInstanceOf(BrokerReleaseError);
    expect((error as BrokerReleaseError).brokerRelease).toBe('4.9.7');
    expect((error as Error).message).toMatch(
      /TIMER_DELAY_SEC\) needs RocketMQ 5\.0\.0 or later; broker broker-a .* runs 4\.9\.7/,
    );
    // Nothing was stored: the queue is empty.
    const probe = await BrokerProbe.open(c);
    try {
      expect([...(await probe.stored(topic)).values()]).toEqual([0]);
    } finally {
      await probe.close();
    }
  }, 240_000);

  it('a delay level still works on 4.9.7, and a plain send is not held back by the check', async () => {
    const c = await cluster('4.9.7');
    const topic = uniqueName('level49');
    await createTopic(c, topic, { queues: 1 });
    const producer = await producerOn(c);
    try {
      expect((await producer.send({ topic, body: 'now' })).status).toBe('SEND_OK');
      expect((await producer.send({ topic, body: 'in 1 s', delayTimeLevel: 1 })).status).toBe('SEND_OK');
    } finally {
      await producer.stop();
    }
  }, 240_000);

  it('a priority message to a 5.3.3 broker is refused: it would ignore the priority', async () => {
    const c = await cluster('5.3.3');
    const topic = uniqueName('priority533');
    await createTopic(c, topic, { queues: 2 });
    const error = await refusal(c, { topic, body: 'urgent', priority: 1 });
    expect(error).toBeInstanceOf(BrokerReleaseError);
    expect((error as Error).message).toMatch(/a priority message needs RocketMQ 5\.4\.0 or later; .* runs 5\.3\.3/);
  }, 240_000);
});

describe('priority messages on a 5.4.0 broker', () => {
  it('a message of priority p is stored in queue min(p, queues - 1) and read back with its priority', async () => {
    const c = await cluster('5.4.0');
    const topic = uniqueName('priority540');
    await createTopic(c, topic, { queues: 4 });
    const producer = await producerOn(c);
    const sent: Array<{ priority: number; queueId: number }> = [];
    try {
      for (const priority of [0, 3, 1, 7, 2]) {
        const result = await producer.send({ topic, body: `p${priority}`, priority });
        sent.push({ priority, queueId: result.messageQueue.queueId });
      }
    } finally {
      await producer.stop();
    }
    // The broker picks the queue from the priority, whatever queue the producer chose; the result says where.
    expect(sent.map((s) => s.queueId)).toEqual(sent.map((s) => Math.min(s.priority, 3)));
    const pull = await createPullConsumer({
      transport: rocketmqTransport({ nameServer: c.namesrvAddr }),
      group: uniqueName('priorityReader'),
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    });
    const got: Message[] = [];
    try {
      await pull.subscribe(topic);
      await waitFor(
        async () => {
          got.push(...(await pull.poll({ timeoutMs: 500 })));
          return got.length >= sent.length;
        },
        { timeoutMs: 60_000, message: () => `${got.length} of ${sent.length}` },
      );
    } finally {
      await pull.close();
    }
    for (const m of got) {
      const priority = Number(m.body.toString().slice(1));
      expect(m.priority, m.body.toString()).toBe(priority);
      expect(m.queueId, m.body.toString()).toBe(Math.min(priority, 3));
    }
  }, 240_000);
});
