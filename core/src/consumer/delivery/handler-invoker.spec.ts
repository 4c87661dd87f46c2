import { describe, expect, it } from 'vitest';
import { RECONSUME_LATER, retryTopicOf } from '../../model/constants';
import type { Message } from '../../model/message';
import type { ConsumeCall } from './consume-call';
import type { ConsumeContext } from '../../spi/consume-context';
import type { ConsumeHook } from '../../spi/consume-hook';
import { ConsumeProgress } from '../progress/consume-progress';
import type { ConsumedMessage } from '../../model/consumed-message';
import { HandlerInvoker, type CallScheduler } from './handler-invoker';
import {
  MQ,
  MemoryOffsetStore,
  binding,
  deferred,
  eventsOf,
  processQueue,
  record,
  records,
  testGroup,
} from '../runtime.fixture';

/** Records what the invoker hands over. */
class Recorder implements CallScheduler<string> {
  readonly completed: { acked: number; error?: string }[] = [];
  readonly settledWith: (string | undefined)[] = [];
  result: string | Promise<string> | Error = 'ok';
  complete(_call: ConsumeCall, acked: number, error: Error | undefined): string | Promise<string> {
    this.completed.push(error ? { acked, error: error.message } : { acked });
    if (this.result instanceof Error) throw this.result;
    return this.result;
  }
  settled(_call: ConsumeCall, result: string | undefined): void {
    this.settledWith.push(result);
  }
}

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
  invoker.accept(pq, records(0, 4), messages);
  return { group, invoker, pq, messages };
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
    await invoker.invoke(invoker.call(pq, messages, 0, 1), new Recorder());
    expect(order).toEqual(['a in Spec.handle 1', 'b in Spec.handle 1', 'handler g', 'b out', 'a out']);
  });

  it('acked: a throw or RECONSUME_LATER fails the whole call; CONCURRENTLY honours ackIndex, ORDERLY does not', async () => {
    const outcome = async (mode: 'CONCURRENTLY' | 'ORDERLY', fn: (input: unknown, ctx: unknown) => unknown) => {
      const { invoker, pq, messages } = setup(mode, fn, [], true);
      const recorder = new Recorder();
      await invoker.invoke(invoker.call(pq, messages, 0, 4), recorder);
      return recorder.completed[0];
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

  it('emits consume events with the acked count, then settles; a failing completion is reported and still settles', async () => {
    const { group, invoker, pq, messages } = setup('CONCURRENTLY', () => undefined);
    const recorder = new Recorder();
    await invoker.invoke(invoker.call(pq, messages, 0, 1), recorder);
    recorder.result = Promise.resolve('later');
    await invoker.invoke(invoker.call(pq, messages, 1, 2), recorder);
    recorder.result = new Error('send-back exploded');
    await invoker.invoke(invoker.call(pq, messages, 2, 3), recorder);
    expect(recorder.settledWith).toEqual(['ok', 'later', undefined]);
    expect(eventsOf(group, 'consumer.consume').map((e) => e.ok)).toEqual([1, 1]);
    expect(eventsOf(group, 'consumer.error').map((e) => e.where)).toEqual(['consume-result']);
    expect(pq.inflight).toBe(0);
  });

  it('does not start a call of a released queue', async () => {
    let called = false;
    const { invoker, pq, messages } = setup('CONCURRENTLY', () => {
      called = true;
    });
    pq.abort();
    const recorder = new Recorder();
    await invoker.invoke(invoker.call(pq, messages, 0, 1), recorder);
    expect(called).toBe(false);
    expect(recorder.settledWith).toEqual([undefined]);
    expect(recorder.completed).toEqual([]);
  });

  it("tracks running calls: abortRunning aborts the signals of one queue's calls only; expire completes one now", async () => {
    const gate = deferred();
    const signals: AbortSignal[] = [];
    const { invoker, pq, messages, group } = setup('ORDERLY', async (_m, ctx) => {
      signals.push((ctx as ConsumeContext).signal);
      await gate.promise;
    });
    const other = processQueue(group, new ConsumeProgress(group, new MemoryOffsetStore(), false), 0, {
      ...MQ,
      queueId: 1,
    });
    const recorder = new Recorder();
    const first = invoker.invoke(invoker.call(pq, messages, 0, 1), recorder);
    const otherMessages: ConsumedMessage[] = [];
    invoker.accept(other, [record(0, { mq: { ...MQ, queueId: 1 } })], otherMessages);
    const second = invoker.invoke(invoker.call(other, otherMessages, 0, 1), recorder);
    expect(invoker.inFlight).toBe(2);
    expect(invoker.abortRunning(new Set([pq]), new Error('deadline'))).toBe(1);
    expect(signals.map((s) => s.aborted)).toEqual([true, false]);
    const [running] = [...invoker.runningCalls()].filter((c) => c.pq === other);
    await invoker.expire(running!, new Error('too long'), recorder);
    expect(recorder.completed).toEqual([{ acked: 0, error: 'too long' }]);
    gate.resolve();
    await Promise.all([first, second]);
    // The expired call's late result is ignored: one completion for it, one for the first call.
    expect(recorder.completed).toHaveLength(2);
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
    invoker.accept(
      pq,
      [
        record(0, { mq: retryMq, properties: { RETRY_TOPIC: 'T' } }),
        record(1, { mq: retryMq, properties: { RETRY_TOPIC: 'U' } }),
      ],
      messages,
    );
    expect(invoker.bindingOf(pq, messages[0]!.record)?.topic).toBe('T');
    expect(invoker.bindingOf(pq, messages[1]!.record)).toBeUndefined();
    const recorder = new Recorder();
    await invoker.invoke(invoker.call(pq, messages, 0, 1), recorder);
    await invoker.invoke(invoker.call(pq, messages, 1, 2), recorder);
    expect(payloads).toEqual([{ i: 0 }]);
    expect(recorder.completed[1]).toEqual({ acked: 0, error: 'no handler of group g subscribes topic U' });
  });
});
