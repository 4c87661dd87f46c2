import { BrokerError, createConsumerApp, createProducer, type Message } from '@mqkit/core';
import { Deliveries, uniqueName, waitFor } from '@mqkit/core/testing';
import { RemotingConnectionError } from '@mqkit/transport-rocketmq';
import { createAclUser, startRocketMqCluster, type RocketMqCluster } from '@mqkit/transport-rocketmq/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerClass } from '../support/fixtures';
import { RocketMqHarness, clusterTransport } from '../support/rocketmq-fixtures';

// A cluster of its own (one broker) with ACL 2.0 and TLS enforced on the name server and the broker.
let cluster: RocketMqCluster;
let harness: RocketMqHarness;
const acl = { accessKey: 'mqkitAdmin', secretKey: `s-${uniqueName('k')}` };

beforeAll(async () => {
  cluster = await startRocketMqCluster({ brokers: ['broker-a'], acl, tls: true });
  harness = new RocketMqHarness(cluster);
}, 180_000);
afterAll(async () => {
  await harness?.close();
  await cluster?.stop();
}, 60_000);

describe('ACL and TLS on a real cluster', () => {
  it('with signed requests over TLS: creates a topic, produces and consumes (heartbeat, pull, commit, send-back)', async () => {
    const topic = uniqueName('secure');
    const group = uniqueName('g');
    await harness.createTopic(topic, 2);
    const seen = new Deliveries();
    let failedOnce = false;
    const Handler = consumerClass(
      { group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
      (m: Message<{ seq: number }>) => {
        // One failure goes back to the broker (CONSUMER_SEND_MSG_BACK, signed too) and comes again.
        if (m.payload.seq === 7 && !failedOnce) {
          failedOnce = true;
          throw new Error('once');
        }
        seen.record(m.payload.seq);
      },
    );
    await harness.app([Handler]);
    await harness.produce(topic, 100);
    await waitFor(() => seen.unique === 100, { timeoutMs: 30_000, message: () => `${seen.unique}/100` });
    expect(seen.missing(100)).toEqual([]);
    expect(failedOnce).toBe(true);
  });

  it('unsigned or wrongly signed requests are refused with NO_PERMISSION (16)', async () => {
    const topic = uniqueName('secure');
    await harness.createTopic(topic, 1);
    for (const credentials of [undefined, { ...acl, secretKey: 'wrong' }]) {
      const producer = await createProducer({
        transport: clusterTransport(cluster, { credentials }),
        group: uniqueName('p'),
        profile: 'fast',
        retryTimesWhenSendFailed: 0,
      });
      try {
        const error: unknown = await producer.send({ topic, payload: { seq: 0 } }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(BrokerError);
        expect((error as BrokerError).responseCode).toBe(16);
      } finally {
        await producer.stop();
      }
    }
  });

  it('a user without PUB on a topic: the send fails with NO_PERMISSION naming the user and the topic, and nothing is stored', async () => {
    const topic = uniqueName('secure');
    await harness.createTopic(topic, 1);
    const user = { username: uniqueName('reader'), password: `p-${uniqueName('x')}` };
    await createAclUser(cluster, { ...user, grants: [{ resource: `Topic:${topic}`, actions: ['Sub'] }] });
    const producer = await createProducer({
      transport: clusterTransport(cluster, { credentials: { accessKey: user.username, secretKey: user.password } }),
      group: uniqueName('p'),
      profile: 'fast',
      retryTimesWhenSendFailed: 0,
    });
    try {
      const error: unknown = await producer.send({ topic, payload: { seq: 0 } }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(BrokerError);
      expect(error).toMatchObject({ responseCode: 16, kind: 'no-permission' });
      expect((error as Error).message).toContain(`User:${user.username} has no permission to access Topic:${topic}`);
    } finally {
      await producer.stop();
    }
    const admin = await harness.adminApp();
    expect(await admin.transport.offsets.maxOffset({ topic, brokerName: 'broker-a', queueId: 0 })).toBe(0);
  });

  it('a user without SUB on the group: start() fails with NO_PERMISSION naming the group, before anything consumes', async () => {
    const topic = uniqueName('secure');
    const group = uniqueName('g');
    await harness.createTopic(topic, 1);
    const user = { username: uniqueName('writer'), password: `p-${uniqueName('x')}` };
    // Sub on the topic, but nothing on the group: a consumer needs both (the heartbeat checks Group:<group>).
    await createAclUser(cluster, { ...user, grants: [{ resource: `Topic:${topic}`, actions: ['Pub', 'Sub'] }] });
    const Handler = consumerClass({ group, topic }, () => undefined);
    const app = await createConsumerApp({
      transport: clusterTransport(cluster, { credentials: { accessKey: user.username, secretKey: user.password } }),
      consumers: [Handler],
      profile: 'fast',
    });
    const error: unknown = await app.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(BrokerError);
    expect(error).toMatchObject({ responseCode: 16, kind: 'no-permission' });
    expect((error as Error).message).toContain(`User:${user.username} has no permission to access Group:${group}`);
    expect(app.state).toBe('stopped');
  });

  it('plain TCP to a TLS-only cluster fails to connect, with a retriable connection error', async () => {
    const producer = await createProducer({
      transport: clusterTransport(cluster, { tls: false }),
      group: uniqueName('p'),
      profile: 'fast',
      retryTimesWhenSendFailed: 0,
    });
    try {
      const error: unknown = await producer.send({ topic: uniqueName('t'), payload: {} }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(Error);
      // The name server drops the plain connection: either it closes (connection error) or never answers (timeout).
      expect(error instanceof RemotingConnectionError || (error as { code?: string }).code === 'TIMEOUT').toBe(true);
    } finally {
      await producer.stop();
    }
  });
});
