import { describe, expect, it } from 'vitest';
import { RECONSUME_LATER, retryTopicOf } from '../../model/constants';
import type { Message } from '../../model/message';
import type { ConsumeContext } from '../../spi/consume-context';
import type { ConsumeHook } from '../../spi/consume-hook';
import { ConsumeProgress } from '../progress/consume-progress';
import type { ConsumedMessage } from '../../model/consumed-message';
import { HandlerInvoker } from './handler-invoker';
import {
  MQ,
  MemoryOffsetStore,
  binding,
  deferred,
  eventsOf,
  processQueue,
  queueWork,
  record,
  records,
  testGroup,
} from '../runtime.fixture';

function setup(
  mode: 'CONCURRENTLY' | 'ORDERLY',
  fn: (input: unknown, ctx: unknown) => unknown,
  hooks: ConsumeHook[] = [],
  batch = false,
) {
  const group = testGroup({ consumeMode: mode });
  const progress = new ConsumeProgress(group, new MemoryOffsetStore(), false);
  const invoker = new HandlerInvoker(group, new Map([['T', binding(fn, { batch })]]), hooks);
  const pq = processQueue(group, progress);
  const messages: ConsumedMessage[] = [];
  queueWork(group, progress, invoker).intake(pq, records(0, 4), messages);
  return { group, invoker, pq, progress, messages };
}

describe('HandlerInvoker', () => {
  it('wraps the handler in the hooks, outermost first, and passes the call as its context', async () => {
    const order: string[] = [];
    const hook = (name: string): ConsumeHook => ({
      name,
      async around(invocation, proceed) {
        order.push(
          `${name} in ${invocation.handler.className}.${invocation.handler.method} ${invocation.messages.length}`,
        );
        const result = await proceed();
        order.push(`${name} out`);
        return result;
      },
    });
    const { invoker, pq, messages } = setup(
      'CONCURRENTLY',
      (_m, ctx) => void order.push(`handler ${(ctx as ConsumeContext).group}`),
      [hook('a'), hook('b')],
    );
    await invoker.invoke(invoker.call(pq, messages, 0, 1));
    expect(order).toEqual(['a in Spec.handle 1', 'b in Spec.handle 1', 'handler g', 'b out', 'a out']);
  });

  it('acked: a throw or RECONSUME_LATER fails the whole call; CONCURRENTLY honours ackIndex, ORDERLY does not', async () => {
    const outcome = async (mode: 'CONCURRENTLY' | 'ORDERLY', fn: (input: unknown, ctx: unknown) => unknown) => {
      const { invoker, pq, messages } = setup(mode, fn, [], true);
      const result = await invoker.invoke(invoker.call(pq, messages, 0, 4));
      return result && (result.error ? { acked: result.acked, error: result.error.message } : { acked: result.acked });
    };
    expect(await outcome('CONCURRENTLY', () => undefined)).toEqual({ acked: 4 });
    const ackIndexOne = (_m: unknown, ctx: unknown): void => {
      (ctx as ConsumeContext).ackIndex = 1;
    };
    expect(await outcome('CONCURRENTLY', ackIndexOne)).toEqual({ acked: 2 });
    expect(await outcome('ORDERLY', ackIndexOne)).toEqual({ acked: 4 });
    expect(await outcome('CONCURRENTLY', () => RECONSUME_LATER)).toEqual({ acked: 0 });
    expect(await outcome('ORDERLY', async () => Promise.reject('text'))).toEqual({ acked: 0, error: 'text' });
  });

  it('answers at once for a synchronous handler, with what it returned; a promise only for one that returned one', async () => {
    const sync = setup('CONCURRENTLY', () => 'sync result');
    const now = sync.invoker.invoke(sync.invoker.call(sync.pq, sync.messages, 0, 1));
    expect(now).not.toBeInstanceOf(Promise);
    expect(now).toEqual({ acked: 1, error: undefined, result: 'sync result' });
    const thrown = setup('CONCURRENTLY', () => {
      throw new Error('boom');
    });
    expect(thrown.invoker.invoke(thrown.invoker.call(thrown.pq, thrown.messages, 0, 1))).toMatchObject({ acked: 0 });
    const later = setup('CONCURRENTLY', async () => 'async result');
    const pending = later.invoker.invoke(later.invoker.call(later.pq, later.messages, 0, 1));
    expect(pending).toBeInstanceOf(Promise);
    expect(await pending).toEqual({ acked: 1, error: undefined, result: 'async result' });
  });

  it("settle emits the consume event with the acked count and ends the queue's call; settleFailed reports", async () => {
    const { group, invoker, pq, messages } = setup('CONCURRENTLY', () => undefined);
    const first = invoker.call(pq, messages, 0, 1);
    const outcome = await invoker.invoke(first);
    // Until the service settles it, the call still counts for a release waiting on the queue.
    expect(pq.inflight).toBe(1);
    invoker.settle(first, outcome!.acked);
    const second = invoker.call(pq, messages, 1, 2);
    await invoker.invoke(second);
    invoker.settleFailed(second, new Error('send-back exploded'));
    expect(eventsOf(group, 'consumer.consume').map((e) => e.ok)).toEqual([1]);
    expect(eventsOf(group, 'consumer.error').map((e) => e.where)).toEqual(['consume-result']);
    expect(pq.inflight).toBe(0);
  });

  it('does not start a call of a released queue', async () => {
    let called = false;
    const { invoker, pq, messages } = setup('CONCURRENTLY', () => {
      called = true;
    });
    pq.abort();
    expect(invoker.invoke(invoker.call(pq, messages, 0, 1))).toBeUndefined();
    expect(called).toBe(false);
    expect(pq.inflight).toBe(0);
  });

  it("tracks running calls: abortRunning aborts the signals of one queue's calls only; expire answers one now", async () => {
    const gate = deferred();
    const signals: AbortSignal[] = [];
    const { invoker, pq, messages, group } = setup('ORDERLY', async (_m, ctx) => {
      signals.push((ctx as ConsumeContext).signal);
      await gate.promise;
    });
    const otherProgress = new ConsumeProgress(group, new MemoryOffsetStore(), false);
    const other = processQueue(group, otherProgress, 0, {
      ...MQ,
      queueId: 1,
    });
    const first = invoker.invoke(invoker.call(pq, messages, 0, 1));
    const otherMessages: ConsumedMessage[] = [];
    queueWork(group, otherProgress, invoker).intake(other, [record(0, { mq: { ...MQ, queueId: 1 } })], otherMessages);
    const second = invoker.invoke(invoker.call(other, otherMessages, 0, 1));
    expect(invoker.inFlight).toBe(2);
    expect(invoker.abortRunning(new Set([pq]), new Error('deadline'))).toBe(1);
    expect(signals.map((s) => s.aborted)).toEqual([true, false]);
    const [running] = [...invoker.runningCalls()].filter((c) => c.pq === other);
    expect(invoker.expire(running!, new Error('too long'))).toMatchObject({ acked: 0, error: { message: 'too long' } });
    gate.resolve();
    // The expired call's late result is ignored: its invoke comes to nothing; the first call's is its own.
    expect(await second).toBeUndefined();
    expect(await first).toMatchObject({ acked: 1 });
    expect(invoker.inFlight).toBe(0);
  });

  it('a retry queue finds the handler of the original topic, and the codec decodes the payload', async () => {
    const group = testGroup();
    const progress = new ConsumeProgress(group, new MemoryOffsetStore(), false);
    const payloads: unknown[] = [];
    const invoker = new HandlerInvoker(
      group,
      new Map([['T', binding((m) => void payloads.push((m as Message).payload))]]),
      [],
    );
    const retryMq = { ...MQ, topic: retryTopicOf('g') };
    const pq = processQueue(group, progress, 0, retryMq);
    const messages: ConsumedMessage[] = [];
    queueWork(group, progress, invoker).intake(
      pq,
      [
        record(0, { mq: retryMq, properties: { RETRY_TOPIC: 'T' } }),
        record(1, { mq: retryMq, properties: { RETRY_TOPIC: 'U' } }),
      ],
      messages,
    );
    expect(invoker.bindingOf(pq, messages[0]!.record)?.topic).toBe('T');
    expect(invoker.bindingOf(pq, messages[1]!.record)).toBeUndefined();
    await invoker.invoke(invoker.call(pq, messages, 0, 1));
    const unbound = await invoker.invoke(invoker.call(pq, messages, 1, 2));
    expect(payloads).toEqual([{ i: 0 }]);
    expect(unbound).toMatchObject({ acked: 0, error: { message: 'no handler of group g subscribes topic U' } });
  });
});
