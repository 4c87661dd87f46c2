import { type ConsumeHook, type ConsumeInvocation, type MqkitEventName, ofEvent } from '@mqkit/core';
import { Deliveries, uniqueName, waitFor } from '@mqkit/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { Harness, consumerClass } from '../support/fixtures';

let harness: Harness;
afterEach(async () => harness?.close());

describe('observability', () => {
  it('around-hooks wrap every handler call in registration order and see its outcome', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 1 });
    const trace: string[] = [];
    const calls: ConsumeInvocation[] = [];
    const hook = (name: string): ConsumeHook => ({
      name,
      async around(call, proceed) {
        trace.push(`${name}:before`);
        calls.push(call);
        try {
          return await proceed();
        } catch (error) {
          trace.push(`${name}:threw`);
          throw error;
        } finally {
          trace.push(`${name}:after`);
        }
      },
    });
    const Handler = consumerClass(
      { group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', maxReconsumeTimes: 0, consumeThreadMax: 1 },
      (m) => {
        trace.push('handler');
        if (m.payload.seq === 1) throw new Error('fails');
      },
    );
    await harness.app([Handler], { hooks: [hook('outer'), hook('inner')] });
    await harness.produce(topic, 2);
    await waitFor(() => trace.length === 12);
    expect(trace).toEqual([
      ...['outer:before', 'inner:before', 'handler', 'inner:after', 'outer:after'],
      ...['outer:before', 'inner:before', 'handler', 'inner:threw', 'inner:after', 'outer:threw', 'outer:after'],
    ]);
    expect(calls[0]).toMatchObject({ group, handler: { className: 'TestConsumer', method: 'handle' } });
    expect(calls[0]!.messages.map((m) => (m.payload as { seq: number }).seq)).toEqual([0]);
  });

  it('around-hooks wrap ORDERLY calls too, one batch at a time in queue order', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 1 });
    const wrapped: number[][] = [];
    const handled: number[] = [];
    const hook: ConsumeHook = {
      name: 'count',
      async around(call, proceed) {
        wrapped.push(call.messages.map((m) => (m.payload as { seq: number }).seq));
        return proceed();
      },
    };
    const Handler = consumerClass(
      {
        group,
        topic,
        consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
        consumeMode: 'ORDERLY',
        batch: true,
        consumeMessageBatchMaxSize: 4,
      },
      (batch) => {
        for (const m of batch) handled.push(m.payload.seq);
      },
    );
    await harness.app([Handler], { hooks: [hook] });
    await harness.produce(topic, 10);
    await waitFor(() => handled.length === 10);
    expect(wrapped.flat()).toEqual(handled);
    expect(handled).toEqual([...Array(10).keys()]);
    expect(wrapped.every((b) => b.length >= 1 && b.length <= 4)).toBe(true);
  });

  it('events: on() returns an unsubscribe function; rebalance, pull, consume and commit are emitted', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 2 });
    const seen = new Deliveries();
    const Handler = consumerClass({ group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' }, (m) =>
      seen.record(m.payload.seq),
    );
    const app = await harness.app([Handler]);
    const counts = { rebalance: 0, pull: 0, consume: 0, commit: 0 };
    const offs = [
      app.on('consumer.pull', () => counts.pull++),
      app.on('consumer.consume', () => counts.consume++),
      app.on('consumer.commit', () => counts.commit++),
    ];
    await harness.produce(topic, 50);
    await waitFor(() => seen.unique === 50 && counts.commit > 0);
    expect(counts.pull).toBeGreaterThan(0);
    expect(counts.consume).toBe(50);
    for (const off of offs) off();
    const frozen = { ...counts };
    await harness.produce(topic, 50, { from: 50 });
    await waitFor(() => seen.unique === 100);
    expect(counts).toEqual(frozen);
    const rebalances: string[] = [];
    const joiner = await harness.app([Handler]);
    joiner.on('consumer.rebalance', (e) => rebalances.push(e.strategy));
    app.on('consumer.rebalance', (e) => rebalances.push(e.strategy));
    await waitFor(() => rebalances.length > 0 && joiner.consumer(group).status().queues.length > 0);
    expect(rebalances.every((s) => s === 'AVG')).toBe(true);
  });

  it('events$: ofEvent(consumer.consume) sees every handled message; event$ and events$ complete at stop', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 2 });
    const seen = new Deliveries();
    const Handler = consumerClass({ group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' }, (m) =>
      seen.record(m.payload.seq),
    );
    const app = await harness.app([Handler]);
    expect(app.events.has('consumer.pull')).toBe(false);
    // One event alone: the other events' payloads are still not built.
    let handledByEvent$ = 0;
    const onlyConsume = app.event$('consumer.consume').subscribe((e) => (handledByEvent$ += e.ok));
    expect([app.events.has('consumer.consume'), app.events.has('consumer.pull')]).toEqual([true, false]);
    let handled = 0;
    const groups = new Set<string>();
    const consumed = app.events$.pipe(ofEvent('consumer.consume')).subscribe(({ payload }) => {
      handled += payload.ok;
      groups.add(payload.group);
    });
    const types: MqkitEventName[] = [];
    let completed = false;
    app.events$.subscribe({ next: (e) => types.push(e.type), complete: () => (completed = true) });
    expect(app.events.has('consumer.pull')).toBe(true);
    await harness.produce(topic, 50);
    await waitFor(() => handled === 50 && handledByEvent$ === 50, {
      message: () => `${handled} and ${handledByEvent$} of 50 seen, ${seen.unique} handled`,
    });
    expect(seen.unique).toBe(50);
    expect([...groups]).toEqual([group]);
    expect(types).toContain('consumer.pull');
    consumed.unsubscribe();
    onlyConsume.unsubscribe();
    await app.stop({ timeoutMs: 5_000 });
    expect(completed).toBe(true);
    expect(types).toContain('consumer.stopped');
    expect([app.events.has('consumer.pull'), app.events.has('consumer.consume')]).toEqual([false, false]);
  });

  it('status(): owned queues with lag, readiness, pause state and the last error', async () => {
    harness = new Harness();
    const topic = uniqueName('T');
    const group = uniqueName('g');
    harness.broker.createTopic({ topic, queues: 2 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const Handler = consumerClass(
      { group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', consumeThreadMax: 1 },
      async (m) => {
        if (m.payload.seq === 0) throw new Error('first one fails');
        await gate;
      },
    );
    const app = await harness.app([Handler]);
    await waitFor(() => app.status().ready);
    await harness.produce(topic, 100);
    await waitFor(() => app.consumer(group).status().lag > 0 && app.consumer(group).status().lastError !== undefined);
    const status = app.consumer(group).status();
    expect(status).toMatchObject({ group, state: 'running', ready: true, paused: false, strategy: 'AVG' });
    expect(status.lastError).toMatchObject({ where: 'handler', message: 'first one fails' });
    expect(
      status.queues
        .filter((q) => q.mq.topic === topic)
        .map((q) => q.mq.queueId)
        .sort(),
    ).toEqual([0, 1]);
    expect(status.queues.reduce((n, q) => n + q.lag, 0)).toBe(status.lag);
    expect(app.status().cachedBytes).toBeGreaterThan(0);
    release();
    await waitFor(() => app.consumer(group).status().lag === 0, { timeoutMs: 15_000 });
  });
});
