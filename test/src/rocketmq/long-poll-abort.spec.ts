import { parseSubscription, type PullResult } from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import type { RemotingEvent } from '@mqkit/transport-rocketmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerClass } from '../support/fixtures';
import { RocketMqHarness, testCluster } from '../support/rocketmq-fixtures';

let harness: RocketMqHarness;
beforeAll(async () => {
  harness = new RocketMqHarness(await testCluster());
});
afterAll(async () => harness?.close());

// RocketMQ's own hold (15 s) and client timeout (30 s), so waiting for the broker would be obvious.
const REAL_HOLD = { base: 'fast' as const, pullSuspendMs: 15_000, pullTimeoutMs: 30_000 };

describe('long polls on a real cluster', () => {
  it('an aborted pull ends at once; the connection stays open and the late answer is dropped', async () => {
    const topic = uniqueName('abort');
    await harness.createTopic(topic, 1, ['broker-a']);
    const admin = await harness.adminApp();
    const events: RemotingEvent[] = [];
    admin.on('rocketmq.connection', (e) => events.push(e));
    const puller = admin.transport.puller;
    const mq = { topic, brokerName: 'broker-a', queueId: 0 };
    const request = {
      group: uniqueName('g'),
      mq,
      offset: 0,
      maxMsgs: 32,
      maxBytes: 1 << 20,
      subscription: parseSubscription(topic, '*'),
      suspendMs: 15_000,
      timeoutMs: 30_000,
    };
    const controller = new AbortController();
    const held = puller.pull(request, controller.signal);
    // Held by the broker: nothing to read at offset 0 of an empty queue.
    const settled = await Promise.race([
      held.then(
        () => 'answered',
        () => 'failed',
      ),
      new Promise((r) => setTimeout(r, 500, 'held')),
    ]);
    expect(settled).toBe('held');
    const abortedAt = Date.now();
    controller.abort(new Error('stop'));
    await expect(held).rejects.toThrow('stop');
    expect(Date.now() - abortedAt).toBeLessThan(50);
    // A message wakes the broker's held request: its answer arrives on the same, still open connection, unmatched.
    await harness.produce(topic, 1);
    await waitFor(() => events.some((e) => e.type === 'unmatched-response' && e.code === 0), { timeoutMs: 10_000 });
    expect(events.filter((e) => e.type === 'disconnected')).toEqual([]);
    const next: PullResult = await puller.pull({ ...request, suspendMs: 0 }, new AbortController().signal);
    expect(next.status).toBe('FOUND');
    expect(next.messages).toHaveLength(1);
  });

  it('stopping a consumer abandons its outstanding long polls instead of waiting for the broker', async () => {
    const topic = uniqueName('stop');
    await harness.createTopic(topic, 4);
    const Idle = consumerClass({ group: uniqueName('g'), topic }, () => undefined);
    const app = await harness.app([Idle], { profile: REAL_HOLD });
    // Every one of the 8 queues (and the 2 retry queues) pulls as soon as it is owned; the queues are empty, so each
    // pull is held by its broker for up to 15 s (plus its 5 s scan).
    await waitFor(() => app.status().ready && app.status().consumers[0]!.queues.length === 10, { timeoutMs: 30_000 });
    const report = await app.stop({ timeoutMs: 20_000 });
    expect(report.drained).toBe(true);
    // Waiting for the broker would take 15-20 s; abandoning the polls takes milliseconds (seconds on a loaded box).
    expect(report.elapsedMs).toBeLessThan(5_000);
  });
});
