import {
  ConfigurationError,
  IllegalStateError,
  TimeoutError,
  createConsumerApp,
  type AllocationStrategy,
  type ConsumerApp,
  type MqkitEvents,
} from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import { memoryTransport } from '@mqkit/transport-memory';
import { afterEach, describe, expect, it } from 'vitest';
import { Harness, consumerClass } from '../support/fixtures';

// A strategy that always throws: every rebalance pass ends unbalanced, so the group can never become ready.
const refusing: AllocationStrategy = {
  name: 'REFUSING',
  allocate() {
    throw new Error('this strategy allocates nothing');
  },
};

let harness: Harness;
const apps: ConsumerApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.stop({ timeoutMs: 2_000 });
  await harness?.close();
});

async function newApp(group: string, topic: string, strategy?: AllocationStrategy): Promise<ConsumerApp> {
  const Handler = consumerClass({ group, topic, ...(strategy ? { strategy } : {}) }, () => undefined);
  const app = await createConsumerApp({
    transport: memoryTransport({ broker: harness.broker }),
    consumers: [Handler],
    profile: 'fast',
  });
  apps.push(app);
  return app;
}

describe('app.ready()', () => {
  it('waits from before start() until every group has taken its queues, and the group says when with consumer.ready', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 4 });
    const app = await newApp(group, topic);
    const readyEvents: MqkitEvents['consumer.ready'][] = [];
    app.on('consumer.ready', (e) => readyEvents.push(e));
    // Asked before start(): it waits through 'new' and 'starting' instead of failing.
    const ready = app.ready();
    await app.start();
    await ready;
    const status = app.status();
    expect(status.ready).toBe(true);
    expect(
      status.consumers[0]!.queues.filter((q) => q.mq.topic === topic)
        .map((q) => q.mq.queueId)
        .sort(),
    ).toEqual([0, 1, 2, 3]);
    expect(readyEvents).toEqual([{ group, clientId: app.clientId, passes: expect.any(Number) }]);
    expect(readyEvents[0]!.passes).toBeGreaterThanOrEqual(1);
    // Once ready, a later call resolves at once.
    await app.ready({ timeoutMs: 1 });
  });

  it('times out naming the group that is not ready and its last error', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 2 });
    const app = await newApp(group, topic, refusing);
    await app.start();
    // The refused pass has reported its error before the wait begins, so the timeout's message must carry it.
    await waitFor(() => app.status().consumers[0]?.lastError !== undefined);
    const failure = await app.ready({ timeoutMs: 300 }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TimeoutError);
    expect((failure as Error).message).toContain(
      `group ${group} owns 0 queue(s) and has ended no balanced rebalance pass`,
    );
    expect((failure as Error).message).toContain('this strategy allocates nothing');
    expect(app.status().ready).toBe(false);
  });

  it('rejects with IllegalStateError when the app stops before it is ready', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    harness.broker.createTopic({ topic, queues: 2 });
    const app = await newApp(uniqueName('g'), topic, refusing);
    await app.start();
    const ready = app.ready({ timeoutMs: 60_000 }).catch((e: unknown) => e);
    await app.stop({ timeoutMs: 2_000 });
    const failure = await ready;
    expect(failure).toBeInstanceOf(IllegalStateError);
    expect((failure as Error).message).toMatch(/will not become ready: it is stopp(ing|ed)/);
    await expect(app.ready()).rejects.toThrow(/it is stopped/);
  });

  it('refuses a timeout that is not a positive number, naming the option', async () => {
    harness = new Harness();
    const app = await newApp(uniqueName('g'), uniqueName('T'));
    for (const timeoutMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      const failure = await app.ready({ timeoutMs }).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(ConfigurationError);
      expect((failure as Error).message).toContain('option timeoutMs');
    }
  });
});
