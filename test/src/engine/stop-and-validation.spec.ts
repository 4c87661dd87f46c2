import { ConfigurationError, createConsumerApp, type ConsumerOptions, type TransportPlugin } from '@mqkit/core';
import { Deliveries, uniqueName, waitFor } from '@mqkit/core/testing';
import { memoryTransport } from '@mqkit/transport-memory';
import { afterEach, describe, expect, it } from 'vitest';
import { Harness, consumerClass } from '../support/fixtures';

let harness: Harness;
afterEach(async () => harness?.close());

describe('stop()', () => {
  it('drains running handler calls, commits what finished, and reports it', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 2 });
    const seen = new Deliveries();
    let started = 0;
    const Handler = consumerClass(
      { group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', consumeThreadMax: 4 },
      async (m) => {
        started++;
        await new Promise((r) => setTimeout(r, 150));
        seen.record(m.payload.seq);
      },
    );
    const app = await harness.app([Handler]);
    await harness.produce(topic, 200);
    await waitFor(() => started >= 4);
    const report = await app.stop({ timeoutMs: 5_000 });
    expect(report.drained).toBe(true);
    const finishedAtStop = seen.unique;
    expect(finishedAtStop).toBe(started); // every started call finished before stop resolved
    const committed = report.consumers[0]!.queues.filter((q) => q.mq.topic === topic).reduce((s, q) => s + q.offset, 0);
    expect(committed).toBeLessThanOrEqual(finishedAtStop);
    for (const q of report.consumers[0]!.queues) expect(harness.broker.queryConsumerOffset(group, q.mq)).toBe(q.offset);
    // A new member resumes at the committed offsets and gets everything else.
    const rest = new Deliveries();
    const Resume = consumerClass({ group, topic }, (m) => rest.record(m.payload.seq));
    await harness.app([Resume]);
    await waitFor(
      () =>
        seen.unique + rest.unique >= 200 &&
        [...Array(200).keys()].every((s) => seen.counts.has(s) || rest.counts.has(s)),
      { timeoutMs: 20_000 },
    );
  }, 30_000);

  it('honours its timeout: aborts ctx.signal of calls still running and resolves', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 1 });
    let aborted = 0;
    let running = 0;
    const Handler = consumerClass(
      { group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', consumeThreadMax: 3 },
      (_m, ctx) => {
        running++;
        ctx.signal.addEventListener('abort', () => aborted++);
        return new Promise(() => undefined); // never settles
      },
    );
    const app = await harness.app([Handler]);
    await harness.produce(topic, 10);
    await waitFor(() => running === 3);
    const t0 = Date.now();
    const report = await app.stop({ timeoutMs: 300 });
    const elapsed = Date.now() - t0;
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(3_000);
    expect(report.drained).toBe(false);
    expect(report.consumers[0]!.queues.find((q) => q.mq.topic === topic)!.abandoned).toBe(3);
    expect(aborted).toBe(3);
    // Nothing was finished, so nothing past the first message was committed.
    expect(harness.broker.queryConsumerOffset(group, { topic, brokerName: 'broker-a', queueId: 0 })).toBe(0);
  }, 15_000);

  it('honours its timeout for ORDERLY calls too: ctx.signal aborts at the deadline and the batch stays uncommitted', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 2 });
    const aborted: string[] = [];
    let running = 0;
    const Handler = consumerClass(
      { group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', consumeMode: 'ORDERLY' },
      (m, ctx) => {
        running++;
        ctx.signal.addEventListener('abort', () =>
          aborted.push(`${m.queueId}:${(ctx.signal.reason as Error).message}`),
        );
        return new Promise(() => undefined); // never settles
      },
    );
    const app = await harness.app([Handler]);
    await harness.produce(topic, 10);
    // One batch per queue at a time: both queues' first batch runs.
    await waitFor(() => running === 2);
    const report = await app.stop({ timeoutMs: 300 });
    expect(report.drained).toBe(false);
    expect(report.consumers[0]!.queues.filter((q) => q.mq.topic === topic).map((q) => q.abandoned)).toEqual([1, 1]);
    expect(aborted.sort()).toEqual(
      [0, 1].map((q) => `${q}:queue ${topic}@broker-a#${q} released before its handler finished`),
    );
    for (const queueId of [0, 1])
      expect(harness.broker.queryConsumerOffset(group, { topic, brokerName: 'broker-a', queueId })).toBe(0);
  }, 15_000);
});

describe('start() validation', () => {
  const base = (): ConsumerOptions & { batch?: false } => ({ group: uniqueName('g'), topic: uniqueName('T') });

  it('an invalid option fails start with a ConfigurationError and nothing joins the broker', async () => {
    harness = new Harness();
    const options = { ...base(), consumeThreadMax: 0 };
    const Bad = consumerClass(options, () => undefined);
    const app = await createConsumerApp({
      transport: memoryTransport({ broker: harness.broker }),
      consumers: [Bad],
      profile: 'fast',
    });
    const error = await app.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toBe(
      'TestConsumer: option consumeThreadMax = 0 is invalid; allowed: an integer in [1, 1000]',
    );
    expect(harness.broker.consumerIds(options.group)).toEqual([]);
    expect(app.state).toBe('stopped');
  });

  it('no transport: the error suggests memoryTransport()', async () => {
    const app = await createConsumerApp({
      transport: undefined as never,
      consumers: [consumerClass(base(), () => undefined)],
    });
    await expect(app.start()).rejects.toThrow(/option transport .* memoryTransport\(\)/);
  });

  it('an unknown strategy name lists the known ones', async () => {
    harness = new Harness();
    const Bad = consumerClass({ ...base(), strategy: 'NOPE' }, () => undefined);
    const app = await createConsumerApp({ transport: memoryTransport({ broker: harness.broker }), consumers: [Bad] });
    await expect(app.start()).rejects.toThrow(/option strategy = "NOPE" is invalid; allowed: one of AVG/);
  });

  it('BROADCASTING without a store that serves it names offsetStore', async () => {
    harness = new Harness();
    const Bad = consumerClass({ ...base(), messageModel: 'BROADCASTING' }, () => undefined);
    const app = await createConsumerApp({ transport: memoryTransport({ broker: harness.broker }), consumers: [Bad] });
    await expect(app.start()).rejects.toThrow(
      /option offsetStore = "broker" is invalid; allowed: an offset store that serves BROADCASTING .*fileOffsetStore\(\)/,
    );
  });

  it('a transport without queue locks cannot run ORDERLY or exclusiveHandoff: start fails naming QueueLocks', async () => {
    harness = new Harness();
    const inner = memoryTransport({ broker: harness.broker });
    const noLocks: TransportPlugin = {
      kind: 'transport',
      name: 'no-locks',
      connect: async (context) => ({ ...(await inner.connect(context)), locks: undefined }),
    };
    const Orderly = consumerClass({ ...base(), consumeMode: 'ORDERLY' }, () => undefined);
    const Handoff = consumerClass({ ...base(), exclusiveHandoff: true }, () => undefined);
    const app = await createConsumerApp({ transport: noLocks, consumers: [Orderly, Handoff] });
    const error: unknown = await app.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigurationError);
    const issues = (error as ConfigurationError).issues;
    expect(issues.map((i) => [i.option, i.value])).toEqual([
      ['transport', 'no-locks'],
      ['transport', 'no-locks'],
    ]);
    expect(issues[0]!.allowed).toMatch(/provides QueueLocks \(needed by consumeMode ORDERLY of group/);
    expect(issues[1]!.allowed).toMatch(/provides QueueLocks \(needed by exclusiveHandoff of group/);
    // The same classes start on a transport that has locks.
    const ok = await createConsumerApp({ transport: inner, consumers: [Orderly] });
    await ok.start();
    await ok.stop();
  });

  it('the same client id twice on one broker is refused', async () => {
    harness = new Harness();
    const Handler = consumerClass(base(), () => undefined);
    await harness.app([Handler], { instanceName: 'same' });
    const second = await createConsumerApp({
      transport: memoryTransport({ broker: harness.broker }),
      consumers: [Handler],
      instanceName: 'same',
    });
    await expect(second.start()).rejects.toThrow(/already connected/);
  });
});
