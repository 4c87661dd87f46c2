import { afterEach, describe, expect, it, vi } from 'vitest';
import { SUSPEND_CURRENT_QUEUE_A_MOMENT } from '../../model/constants';
import type { Message } from '../../model/message';
import type { QueueLocks, RetryChannel } from '../../spi/transport.roles';
import type { ConsumeContext } from '../../spi/consume-context';
import type { ConsumeHook } from '../../spi/consume-hook';
import { ConsumeProgress } from '../progress/consume-progress';
import { HandlerInvoker } from './handler-invoker';
import type { HandlerBinding } from './handler-binding';
import { OrderlyConsumeService } from './orderly-consume.service';
import { QueueLockManager } from '../queue/queue-lock-manager';
import {
  MQ,
  MemoryOffsetStore,
  binding,
  deferred,
  eventsOf,
  flush,
  processQueue,
  records,
  queueWork,
  testGroup,
} from '../runtime.fixture';

const services: OrderlyConsumeService[] = [];
afterEach(() => {
  for (const s of services.splice(0)) s.close();
  vi.useRealTimers();
});

function setup(
  options: Parameters<typeof testGroup>[0],
  handler: HandlerBinding,
  extra: {
    retry?: RetryChannel;
    locks?: QueueLocks;
    hooks?: ConsumeHook[];
    profile?: Parameters<typeof testGroup>[2];
  } = {},
) {
  const group = testGroup({ consumeMode: 'ORDERLY', ...options }, undefined, extra.profile);
  const progress = new ConsumeProgress(group, new MemoryOffsetStore(), false);
  const invoker = new HandlerInvoker(group, new Map([[handler.topic, handler]]), extra.hooks ?? []);
  const lockManager = extra.locks ? new QueueLockManager(group, extra.locks) : undefined;
  const service = new OrderlyConsumeService(
    group,
    invoker,
    queueWork(group, progress, invoker),
    extra.retry,
    lockManager,
  );
  services.push(service);
  return { group, progress, invoker, service, lockManager };
}

const offsetOf = (m: unknown) => (m as Message).queueOffset;

describe('OrderlyConsumeService', () => {
  it('handles one queue one batch at a time in offset order, and different queues in parallel', async () => {
    const log: string[] = [];
    let peakPerQueue = 0;
    let running = 0;
    let peakRunning = 0;
    const perQueue = new Map<number, number>();
    const { group, progress, service } = setup(
      { consumeThreadMax: 4, consumeMessageBatchMaxSize: 2 },
      binding(
        async (batch) => {
          const list = batch as Message[];
          const q = list[0]!.queueId;
          perQueue.set(q, (perQueue.get(q) ?? 0) + 1);
          peakPerQueue = Math.max(peakPerQueue, perQueue.get(q)!);
          running++;
          peakRunning = Math.max(peakRunning, running);
          log.push(`${q}:${list.map((m) => m.queueOffset).join(',')}`);
          await flush();
          running--;
          perQueue.set(q, perQueue.get(q)! - 1);
        },
        { batch: true },
      ),
    );
    const a = processQueue(group, progress, 0, MQ);
    const b = processQueue(group, progress, 0, { ...MQ, queueId: 1 });
    service.submit(a, records(0, 5, MQ));
    service.submit(b, records(0, 3, { ...MQ, queueId: 1 }));
    await vi.waitFor(() => expect(a.msgCount + b.msgCount).toBe(0));
    expect(log.filter((l) => l.startsWith('0:'))).toEqual(['0:0,1', '0:2,3', '0:4']);
    expect(log.filter((l) => l.startsWith('1:'))).toEqual(['1:0,1', '1:2']);
    expect(peakPerQueue).toBe(1);
    expect(peakRunning).toBe(2); // the two queues' batches were in the handler at the same time
    expect(a.progress.committable).toBe(5);
    expect(b.progress.committable).toBe(3);
  });

  it('a failed batch stays at the head and is tried again after the suspend time (ctx may shorten it)', async () => {
    vi.useFakeTimers();
    const seen: number[] = [];
    let fails = 2;
    const { group, progress, service } = setup(
      { suspendCurrentQueueTimeMillis: 1_000 },
      binding((m, ctx) => {
        seen.push(offsetOf(m));
        if (offsetOf(m) === 1 && fails-- > 0) {
          if (fails === 0) (ctx as ConsumeContext).suspendCurrentQueueTimeMillis = 100;
          return SUSPEND_CURRENT_QUEUE_A_MOMENT;
        }
        return undefined;
      }),
    );
    const pq = processQueue(group, progress);
    service.submit(pq, records(0, 3));
    await vi.advanceTimersByTimeAsync(5);
    expect(seen).toEqual([0, 1]);
    expect(pq.progress.committable).toBe(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(seen).toEqual([0, 1, 1]);
    await vi.advanceTimersByTimeAsync(100);
    expect(seen).toEqual([0, 1, 1, 1, 2]);
    expect(pq.progress.committable).toBe(3);
    expect(eventsOf(group, 'consumer.consume').map((e) => e.ok)).toEqual([1, 0, 0, 1, 1]);
  });

  it('paused, neither a suspended batch nor a new one runs; the pause resolves after the running batch, resume goes on in order', async () => {
    vi.useFakeTimers();
    const seen: number[] = [];
    const gate = deferred();
    let fails = 1;
    const { group, progress, service } = setup(
      { suspendCurrentQueueTimeMillis: 100 },
      binding(async (m) => {
        seen.push(offsetOf(m));
        if (offsetOf(m) === 1 && fails-- > 0) {
          await gate.promise;
          return SUSPEND_CURRENT_QUEUE_A_MOMENT;
        }
        return undefined;
      }),
    );
    const pq = processQueue(group, progress);
    service.submit(pq, records(0, 2));
    await vi.advanceTimersByTimeAsync(5);
    expect(seen).toEqual([0, 1]);
    let paused = false;
    const pausing = service.pauseDispatch().then(() => (paused = true));
    service.submit(pq, records(2, 4));
    await vi.advanceTimersByTimeAsync(5);
    expect(paused).toBe(false);
    gate.resolve();
    await vi.advanceTimersByTimeAsync(5);
    await pausing;
    // The suspended batch is due after 100 ms: not while paused.
    await vi.advanceTimersByTimeAsync(1_000);
    expect(seen).toEqual([0, 1]);
    expect(pq.msgCount).toBe(3);
    expect(pq.progress.committable).toBe(1);
    service.resumeDispatch();
    await vi.advanceTimersByTimeAsync(5);
    expect(seen).toEqual([0, 1, 1, 2, 3]);
    expect(pq.progress.committable).toBe(4);
  });

  it('paused, a queue whose waiting work is discarded never runs that work, and schedules new work after the resume', async () => {
    vi.useFakeTimers();
    const seen: number[] = [];
    const { group, progress, service } = setup(
      {},
      binding((m) => void seen.push(offsetOf(m))),
    );
    const pq = processQueue(group, progress);
    await service.pauseDispatch();
    service.submit(pq, records(0, 3));
    expect(service.queued).toBe(3);
    service.discardQueued(pq);
    expect(service.queued).toBe(0);
    service.submit(pq, records(3, 5));
    service.resumeDispatch();
    await vi.advanceTimersByTimeAsync(5);
    // The discarded batch (offset 0) never runs, and the queue was free to schedule the new work.
    expect(seen).toEqual([3, 4]);
  });

  it('past maxReconsumeTimes a batch goes to the DLQ (delay level -1) and the queue moves on', async () => {
    vi.useFakeTimers();
    const sent: { offset: number; delayLevel: number }[] = [];
    const retry: RetryChannel = {
      sendBack: async (r) => void sent.push({ offset: r.message.queueOffset, delayLevel: r.delayLevel }),
    };
    const seen: number[] = [];
    const { group, progress, service } = setup(
      { maxReconsumeTimes: 2, suspendCurrentQueueTimeMillis: 10 },
      binding((m) => {
        seen.push(offsetOf(m));
        if (offsetOf(m) === 0) throw new Error('poison');
      }),
      { retry },
    );
    const pq = processQueue(group, progress);
    service.submit(pq, records(0, 2));
    await vi.advanceTimersByTimeAsync(100);
    // Tried with reconsumeTimes 0, 1 and 2; at 2 (= max) it is dead-lettered instead of suspended again.
    expect(seen).toEqual([0, 0, 0, 1]);
    expect(sent).toEqual([{ offset: 0, delayLevel: -1 }]);
    expect(pq.progress.committable).toBe(2);
  });

  it('every call goes through the hooks, like a CONCURRENTLY call', async () => {
    const around: string[] = [];
    const hook: ConsumeHook = {
      name: 'count',
      async around(invocation, proceed) {
        around.push(`${invocation.group}:${invocation.messages.map((m) => m.queueOffset).join(',')}`);
        return proceed();
      },
    };
    const handled: number[] = [];
    const { group, progress, service } = setup(
      {},
      binding((m) => void handled.push(offsetOf(m))),
      { hooks: [hook] },
    );
    const pq = processQueue(group, progress);
    service.submit(pq, records(0, 3));
    await vi.waitFor(() => expect(pq.msgCount).toBe(0));
    expect(around).toEqual(['g:0', 'g:1', 'g:2']);
    expect(handled).toEqual([0, 1, 2]);
  });

  it('a running call is reachable for abort: its ctx.signal aborts when a release gives up waiting', async () => {
    let signal: AbortSignal | undefined;
    const gate = deferred();
    const { group, progress, service, invoker } = setup(
      {},
      binding(async (_m, ctx) => {
        signal = (ctx as ConsumeContext).signal;
        await gate.promise;
      }),
    );
    const pq = processQueue(group, progress);
    service.submit(pq, records(0, 1));
    await flush();
    expect(service.inFlight).toBe(1);
    expect(invoker.abortRunning(new Set([pq]), new Error('stop deadline'))).toBe(1);
    expect(signal?.aborted).toBe(true);
    expect((signal!.reason as Error).message).toBe('stop deadline');
    gate.resolve();
  });

  it('under broker locks a batch runs only while the lock is valid: it locks first, then consumes', async () => {
    const requests: number[] = [];
    const locks: QueueLocks = {
      lock: async (_g, mqs) => {
        requests.push(mqs.length);
        return mqs;
      },
      unlock: async () => undefined,
    };
    const handled: number[] = [];
    const { group, progress, service } = setup(
      {},
      binding((m) => void handled.push(offsetOf(m))),
      { locks },
    );
    const pq = processQueue(group, progress);
    service.submit(pq, records(0, 2));
    await vi.waitFor(() => expect(pq.msgCount).toBe(0));
    expect(requests).toEqual([1]);
    expect(pq.locked).toBe(true);
    expect(handled).toEqual([0, 1]);
  });
});
