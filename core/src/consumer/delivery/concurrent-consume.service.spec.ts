import { afterEach, describe, expect, it, vi } from 'vitest';
import { RECONSUME_LATER, retryTopicOf } from '../../model/constants';
import type { RetryChannel } from '../../spi/transport.roles';
import { ConcurrentConsumeService } from './concurrent-consume.service';
import type { ConsumeContext } from '../../spi/consume-context';
import { ConsumeProgress } from '../progress/consume-progress';
import type { Message } from '../../model/message';
import { HandlerInvoker } from './handler-invoker';
import type { HandlerBinding } from './handler-binding';
import {
  MQ,
  MemoryOffsetStore,
  binding,
  deferred,
  eventsOf,
  flush,
  processQueue,
  record,
  records,
  queueWork,
  testGroup,
} from '../runtime.fixture';

function setup(
  options: Parameters<typeof testGroup>[0],
  handler: HandlerBinding,
  retry?: RetryChannel,
  profile?: Parameters<typeof testGroup>[2],
) {
  const group = testGroup(options, undefined, profile);
  const store = new MemoryOffsetStore();
  const progress = new ConsumeProgress(group, store, false);
  const invoker = new HandlerInvoker(group, new Map([[handler.topic, handler]]), []);
  const service = new ConcurrentConsumeService(group, invoker, queueWork(group, progress, invoker), retry);
  services.push(service);
  return { group, store, progress, invoker, service };
}

const services: ConcurrentConsumeService[] = [];
afterEach(() => {
  for (const s of services.splice(0)) s.close();
  vi.useRealTimers();
});

const payloadOf = (input: unknown) => (input as Message<{ i: number }>).payload.i;

describe('ConcurrentConsumeService', () => {
  it('hands each message to the handler once and moves the committable offset past the smallest unfinished one', async () => {
    const gates = new Map<number, ReturnType<typeof deferred<void>>>();
    const seen: number[] = [];
    const { group, progress, service } = setup(
      { consumeThreadMax: 4 },
      binding(async (m) => {
        const i = payloadOf(m);
        seen.push(i);
        const gate = deferred();
        gates.set(i, gate);
        await gate.promise;
      }),
    );
    const pq = processQueue(group, progress, 10);
    const accepted = service.submit(pq, records(10, 14));
    expect(accepted.count).toBe(4);
    await flush();
    expect(seen).toEqual([10, 11, 12, 13]);
    gates.get(11)!.resolve();
    gates.get(12)!.resolve();
    await flush();
    // 10 still runs: nothing past it may be committed.
    expect(pq.progress.committable).toBe(10);
    gates.get(10)!.resolve();
    await flush();
    expect(pq.progress.committable).toBe(13);
    gates.get(13)!.resolve();
    await flush();
    expect(pq.progress.committable).toBe(14);
    expect(pq.msgCount).toBe(0);
    expect(eventsOf(group, 'consumer.consume').map((e) => [e.count, e.ok])).toEqual([
      [1, 1],
      [1, 1],
      [1, 1],
      [1, 1],
    ]);
  });

  it('a duplicate of a retried pull (an offset already taken) is not accepted again', async () => {
    const { group, progress, service } = setup(
      {},
      binding(() => undefined),
    );
    const pq = processQueue(group, progress, 0);
    expect(service.submit(pq, records(0, 3)).count).toBe(3);
    expect(service.submit(pq, records(1, 5)).count).toBe(2);
  });

  it('runs at most consumeThreadMax calls at once, starting from consumeThreadMin and growing under backlog', async () => {
    let running = 0;
    let peak = 0;
    const gate = deferred();
    const { group, progress, service } = setup(
      { consumeThreadMin: 2, consumeThreadMax: 5 },
      binding(async () => {
        running++;
        peak = Math.max(peak, running);
        await gate.promise;
        running--;
      }),
    );
    const pq = processQueue(group, progress);
    service.submit(pq, records(0, 20));
    await flush();
    expect(running).toBe(5);
    expect(service.inFlight).toBe(5);
    expect(service.queued).toBe(15);
    gate.resolve();
    await vi.waitFor(() => expect(pq.msgCount).toBe(0));
    expect(peak).toBe(5);
  });

  it('a batch handler gets chunks of consumeMessageBatchMaxSize; ackIndex sends only the tail back, at the delay level asked for', async () => {
    const sent: { offset: number; delayLevel: number; maxReconsumeTimes: number }[] = [];
    const retry: RetryChannel = {
      sendBack: async (r) =>
        void sent.push({
          offset: r.message.queueOffset,
          delayLevel: r.delayLevel,
          maxReconsumeTimes: r.maxReconsumeTimes,
        }),
    };
    const sizes: number[] = [];
    const { group, progress, service } = setup(
      { consumeMessageBatchMaxSize: 4 },
      binding(
        (batch, ctx) => {
          const list = batch as Message[];
          sizes.push(list.length);
          if (list[0]!.queueOffset === 4) {
            (ctx as ConsumeContext).ackIndex = 1;
            (ctx as ConsumeContext).delayLevelWhenNextConsume = 5;
          }
        },
        { batch: true },
      ),
      retry,
    );
    const pq = processQueue(group, progress);
    service.submit(pq, records(0, 10));
    await vi.waitFor(() => expect(pq.msgCount).toBe(0));
    expect(sizes).toEqual([4, 4, 2]);
    expect(sent).toEqual([
      { offset: 6, delayLevel: 5, maxReconsumeTimes: 16 },
      { offset: 7, delayLevel: 5, maxReconsumeTimes: 16 },
    ]);
    expect(pq.progress.committable).toBe(10);
    expect(eventsOf(group, 'consumer.consume').map((e) => e.ok)).toEqual([4, 2, 2]);
    expect(eventsOf(group, 'consumer.retry').map((e) => [e.delayLevel, e.deadLetter])).toEqual([
      [5, false],
      [5, false],
    ]);
  });

  it('consumer.retry says which send-backs the broker dead-letters: its stored reconsumeTimes at max, or delay level -1', async () => {
    const retry: RetryChannel = { sendBack: async () => undefined };
    const { group, progress, service } = setup(
      { maxReconsumeTimes: 2 },
      binding((m, ctx) => {
        if (payloadOf(m) === 3) (ctx as ConsumeContext).delayLevelWhenNextConsume = -1;
        throw new Error('fails');
      }),
      retry,
    );
    const pq = processQueue(group, progress);
    service.submit(pq, [
      record(0, { reconsumeTimes: 1 }),
      record(1, { reconsumeTimes: 2 }),
      record(2, { reconsumeTimes: 3 }),
      record(3),
    ]);
    await vi.waitFor(() => expect(pq.msgCount).toBe(0));
    const verdicts = new Map(eventsOf(group, 'consumer.retry').map((e) => [e.reconsumeTimes, e.deadLetter]));
    expect(Object.fromEntries(verdicts)).toEqual({ 0: true, 1: false, 2: true, 3: true });
  });

  it('a throw or RECONSUME_LATER sends the message back; the error is reported', async () => {
    const sent: number[] = [];
    const retry: RetryChannel = { sendBack: async (r) => void sent.push(r.message.queueOffset) };
    const { group, progress, service } = setup(
      { maxReconsumeTimes: 3 },
      binding((m) => {
        const i = payloadOf(m);
        if (i === 1) throw new Error('boom');
        if (i === 2) return RECONSUME_LATER;
        return undefined;
      }),
      retry,
    );
    const pq = processQueue(group, progress);
    service.submit(pq, records(0, 4));
    await vi.waitFor(() => expect(pq.msgCount).toBe(0));
    expect(sent.sort()).toEqual([1, 2]);
    expect(pq.progress.committable).toBe(4);
    expect(eventsOf(group, 'consumer.error').map((e) => [e.where, e.error.message])).toEqual([['handler', 'boom']]);
  });

  it('when the send-back fails the message is consumed again here, with reconsumeTimes counting up, and the offset holds until then', async () => {
    vi.useFakeTimers();
    let attempts = 0;
    const times: number[] = [];
    const retry: RetryChannel = { sendBack: async () => Promise.reject(new Error('unreachable')) };
    const { group, progress, service } = setup(
      {},
      binding((m) => {
        times.push((m as Message).reconsumeTimes);
        if (++attempts < 3) throw new Error('fail');
      }),
      retry,
      { localRetryDelayMs: 1_000 },
    );
    const pq = processQueue(group, progress);
    service.submit(pq, [record(0)]);
    await vi.advanceTimersByTimeAsync(10);
    expect(times).toEqual([0]);
    expect(pq.progress.committable).toBe(0);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(times).toEqual([0, 1]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(times).toEqual([0, 1, 2]);
    expect(pq.progress.committable).toBe(1);
    expect(eventsOf(group, 'consumer.retry').map((e) => [e.local, e.deadLetter])).toEqual([
      [true, false],
      [true, false],
    ]);
    expect(eventsOf(group, 'consumer.error').filter((e) => e.where === 'send-back')).toHaveLength(2);
  });

  it('BROADCASTING has no retry: a failure is reported and skipped', async () => {
    const { group, progress, service } = setup(
      { messageModel: 'BROADCASTING' },
      binding(() => {
        throw new Error('bad');
      }),
    );
    const pq = processQueue(group, progress);
    service.submit(pq, [record(0)]);
    await vi.waitFor(() => expect(pq.msgCount).toBe(0));
    expect(eventsOf(group, 'consumer.error').map((e) => e.where)).toEqual(['handler', 'broadcast-failure-skipped']);
    expect(pq.progress.committable).toBe(1);
  });

  it('a call past consumeTimeout is given up: its signal aborts and its message goes back at delay level 3', async () => {
    vi.useFakeTimers();
    const sent: number[] = [];
    const retry: RetryChannel = { sendBack: async (r) => void sent.push(r.delayLevel) };
    let signal: AbortSignal | undefined;
    // 0.001 min = 60 ms; sweeps every 20 ms.
    const { group, progress, service } = setup(
      { consumeTimeout: 0.001 },
      binding((_m, ctx) => {
        signal = (ctx as ConsumeContext).signal;
        return new Promise(() => undefined);
      }),
      retry,
    );
    const pq = processQueue(group, progress);
    service.submit(pq, [record(0)]);
    await vi.advanceTimersByTimeAsync(50);
    expect(signal?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(60);
    expect(signal?.aborted).toBe(true);
    expect(sent).toEqual([3]);
    expect(pq.progress.committable).toBe(1);
    expect(service.inFlight).toBe(0);
    expect(eventsOf(group, 'consumer.error')[0]).toMatchObject({ where: 'handler', error: { name: 'TimeoutError' } });
  });

  it('paused, no handler call starts (new messages, local retries): the pause resolves after the running call, resume hands each over once', async () => {
    vi.useFakeTimers();
    const started: number[] = [];
    const gate = deferred();
    let failFirst = true;
    const retry: RetryChannel = { sendBack: async () => Promise.reject(new Error('unreachable')) };
    const { group, progress, service } = setup(
      { consumeThreadMax: 4 },
      binding(async (m) => {
        const i = payloadOf(m);
        started.push(i);
        if (i === 0) await gate.promise;
        if (i === 1 && failFirst) {
          failFirst = false;
          throw new Error('fail once');
        }
      }),
      retry,
      { localRetryDelayMs: 1_000 },
    );
    const pq = processQueue(group, progress);
    service.submit(pq, records(0, 2));
    await vi.advanceTimersByTimeAsync(5);
    expect(started).toEqual([0, 1]);
    let paused = false;
    const pausing = service.pauseDispatch().then(() => (paused = true));
    service.submit(pq, records(2, 5));
    // Message 1 failed and its send-back too: it is due again here in 1 s, while paused.
    await vi.advanceTimersByTimeAsync(2_000);
    expect(paused).toBe(false);
    expect(started).toEqual([0, 1]);
    gate.resolve();
    await vi.advanceTimersByTimeAsync(5);
    await pausing;
    expect(started).toEqual([0, 1]);
    // Everything but the finished call is cached and unfinished, so the offset holds at the retried message.
    expect(pq.msgCount).toBe(4);
    expect(pq.progress.committable).toBe(1);
    expect(service.queued).toBe(4);
    service.resumeDispatch();
    await vi.advanceTimersByTimeAsync(5);
    expect(started.slice(2).sort()).toEqual([1, 2, 3, 4]);
    expect(pq.msgCount).toBe(0);
    expect(pq.progress.committable).toBe(5);
  });

  it('a released queue starts none of its waiting work, and its failures stay unfinished for the next owner', async () => {
    const started: number[] = [];
    const gate = deferred();
    const retry: RetryChannel = { sendBack: async () => undefined };
    const { group, progress, service } = setup(
      { consumeThreadMax: 1 },
      binding(async (m) => {
        started.push(payloadOf(m));
        await gate.promise;
        throw new Error('after release');
      }),
      retry,
    );
    const pq = processQueue(group, progress);
    service.submit(pq, records(0, 3));
    await flush();
    pq.abort();
    service.discardQueued(pq);
    gate.resolve();
    await vi.waitFor(() => expect(pq.inflight).toBe(0));
    expect(started).toEqual([0]);
    expect(pq.contains(0)).toBe(true);
    expect(pq.progress.committable).toBe(0);
  });

  it('a retry queue mixes topics: each message goes to the handler of its original topic', async () => {
    const calls: string[] = [];
    const group = testGroup();
    const store = new MemoryOffsetStore();
    const progress = new ConsumeProgress(group, store, false);
    const handlers = new Map([
      ['A', binding((m) => void calls.push(`A:${(m as Message).topic}`), { topic: 'A' })],
      ['B', binding((m) => void calls.push(`B:${(m as Message).topic}`), { topic: 'B' })],
    ]);
    const invoker = new HandlerInvoker(group, handlers, []);
    const service = new ConcurrentConsumeService(group, invoker, queueWork(group, progress, invoker), undefined);
    services.push(service);
    const retryMq = { ...MQ, topic: retryTopicOf('g') };
    const pq = processQueue(group, progress, 0, retryMq);
    service.submit(
      pq,
      [0, 1, 2].map((i) => record(i, { mq: retryMq, properties: { RETRY_TOPIC: i === 1 ? 'B' : 'A' } })),
    );
    await vi.waitFor(() => expect(pq.msgCount).toBe(0));
    expect(calls.sort()).toEqual(['A:A', 'A:A', 'B:B']);
  });
});
