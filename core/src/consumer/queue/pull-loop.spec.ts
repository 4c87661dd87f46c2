import { afterEach, describe, expect, it, vi } from 'vitest';
import { BrokerError } from '../../errors/broker.error';
import type { MessageRecord } from '../../model/message';
import { PullStatus, type PullResult } from '../../model/pull-result';
import { parseSubscription } from '../../model/subscription';
import type { MessagePuller, PullRequest } from '../../spi/transport.roles';
import { ByteBudget } from './byte-budget';
import { ConsumeProgress } from '../progress/consume-progress';
import type { Accepted, ConsumeService } from './consume-service';
import { expectTimeline } from '../../util/fake-time.fixture';
import { ProcessQueue } from './process-queue';
import { PullLoop, limitsFromOptions, type PullLoopHost } from './pull-loop';
import { MQ, MemoryOffsetStore, deferred, eventsOf, record, records, testGroup } from '../runtime.fixture';

/** A puller answering from a script; a pull without an answer waits (a held long poll) until its signal aborts. */
class ScriptedPuller implements MessagePuller {
  readonly requests: PullRequest[] = [];
  private readonly answers: ((r: PullRequest) => PullResult | Error)[] = [];
  private waiting: (() => void) | undefined;

  thenAnswer(answer: (r: PullRequest) => PullResult | Error): this {
    this.answers.push(answer);
    this.waiting?.();
    return this;
  }

  pull(request: PullRequest, signal: AbortSignal): Promise<PullResult> {
    this.requests.push(request);
    return new Promise((resolve, reject) => {
      const answer = (): void => {
        const next = this.answers.shift();
        if (!next) return;
        this.waiting = undefined;
        const result = next(request);
        if (result instanceof Error) reject(result);
        else resolve(result);
      };
      signal.addEventListener('abort', () => reject(signal.reason ?? new Error('aborted')), { once: true });
      if (this.answers.length > 0) answer();
      else this.waiting = answer;
    });
  }
}

const found = (msgs: MessageRecord[], next: number): PullResult => ({
  status: PullStatus.FOUND,
  nextBeginOffset: next,
  minOffset: 0,
  maxOffset: next,
  messages: msgs,
});
const none = (status: PullStatus, next: number): PullResult => ({
  status,
  nextBeginOffset: next,
  minOffset: 0,
  maxOffset: next,
  messages: [],
});

/** A consume service that keeps what it is given in the queue until `finish`. */
class HoldingConsume implements ConsumeService {
  readonly inFlight = 0;
  readonly peakInFlight = 0;
  readonly queued = 0;
  readonly batches: number[][] = [];
  private readonly seqs: number[] = [];
  submit(pq: ProcessQueue, recs: readonly MessageRecord[]): Accepted {
    const batch: number[] = [];
    const bytes = pq.put(recs, (r, seq) => {
      batch.push(r.queueOffset);
      this.seqs.push(seq);
    });
    if (batch.length > 0) this.batches.push(batch);
    return { count: batch.length, bytes };
  }
  finish(pq: ProcessQueue, progress: ConsumeProgress, n: number): void {
    pq.remove(this.seqs.splice(0, n));
    progress.advance(pq);
  }
  discardQueued(): void {}
  abandon(): number {
    return 0;
  }
  close(): void {}
}

function setup(
  options: Parameters<typeof testGroup>[0] = {},
  host: Partial<PullLoopHost> = {},
  pullCommits = false,
  profile: Parameters<typeof testGroup>[2] = {},
) {
  const group = testGroup(options, ['consumer.error', 'consumer.pull'], profile);
  const progress = new ConsumeProgress(group, new MemoryOffsetStore(), pullCommits);
  const pq = new ProcessQueue(MQ, parseSubscription('T', options.tags ?? '*'), progress.begin(MQ, 0), 0, group.signal);
  const puller = new ScriptedPuller();
  const consume = new HoldingConsume();
  const offsetIllegal = vi.fn(async () => undefined);
  const loop = new PullLoop(group, pq, puller, consume, progress, {
    limits: () => limitsFromOptions(group.options, 1),
    whenRunning: () => undefined,
    offsetIllegal,
    ...host,
  });
  loops.push(group.controller);
  return { group, progress, pq, puller, consume, loop, offsetIllegal };
}

const loops: AbortController[] = [];
afterEach(() => {
  for (const c of loops.splice(0)) c.abort();
  vi.useRealTimers();
});

describe('PullLoop', () => {
  it('pulls from the next offset, hands what it found to the consume service, and moves on', async () => {
    const { pq, puller, consume, loop } = setup();
    puller.thenAnswer(() => found(records(0, 3), 3)).thenAnswer(() => found(records(3, 5), 5));
    const running = loop.run();
    await vi.waitFor(() => expect(puller.requests).toHaveLength(3));
    expect(puller.requests.map((r) => r.offset)).toEqual([0, 3, 5]);
    expect(consume.batches).toEqual([
      [0, 1, 2],
      [3, 4],
    ]);
    expect(pq.nextOffset).toBe(5);
    pq.abort();
    await running;
  });

  it('asks for no more than the room left, and waits for capacity instead of pulling over the limit', async () => {
    const { pq, puller, consume, progress, loop } = setup({ pullThresholdForQueue: 5, pullBatchSize: 4 });
    puller
      .thenAnswer((r) => found(records(0, r.maxMsgs), r.maxMsgs))
      .thenAnswer((r) => found(records(4, 4 + r.maxMsgs), 4 + r.maxMsgs));
    const running = loop.run();
    await vi.waitFor(() => expect(consume.batches).toHaveLength(2));
    // 4 fetched, then the room was 1.
    expect(puller.requests.map((r) => r.maxMsgs)).toEqual([4, 1]);
    await new Promise((r) => setImmediate(r));
    expect(puller.requests).toHaveLength(2);
    // Back under the low watermark (limit - batch = 1): the next pull goes out.
    consume.finish(pq, progress, 4);
    await vi.waitFor(() => expect(puller.requests).toHaveLength(3));
    expect(puller.requests[2]!.offset).toBe(5);
    pq.abort();
    await running;
  });

  it('an abort ends the outstanding long poll and the loop', async () => {
    const { pq, puller, loop, group } = setup();
    const running = loop.run();
    await vi.waitFor(() => expect(puller.requests).toHaveLength(1));
    pq.abort();
    await running;
    expect(eventsOf(group, 'consumer.error')).toEqual([]);
  });

  it('carries the committable offset only when progress allows pull commits', async () => {
    for (const pullCommits of [false, true]) {
      const { pq, puller, consume, progress, loop } = setup({}, {}, pullCommits);
      puller.thenAnswer(() => found(records(0, 3), 3));
      const running = loop.run();
      await vi.waitFor(() => expect(consume.batches).toHaveLength(1));
      // The second pull went out before anything finished (committable 0: nothing to carry); it is held.
      consume.finish(pq, progress, 3);
      puller.thenAnswer(() => none(PullStatus.NO_NEW_MSG, 3));
      await vi.waitFor(() => expect(puller.requests).toHaveLength(3));
      expect(puller.requests[1]!.commitOffset).toBeUndefined();
      expect(puller.requests[2]!.commitOffset).toBe(pullCommits ? 3 : undefined);
      pq.abort();
      await running;
    }
  });

  it('NO_NEW_MSG / NO_MATCHED_MSG with nothing cached move the committable offset past the empty range', async () => {
    const { pq, puller, loop } = setup();
    puller.thenAnswer(() => none(PullStatus.NO_MATCHED_MSG, 7));
    const running = loop.run();
    await vi.waitFor(() => expect(puller.requests).toHaveLength(2));
    expect(pq.progress.committable).toBe(7);
    expect(puller.requests[1]!.offset).toBe(7);
    pq.abort();
    await running;
  });

  it('filters tags exactly on the client after the broker hash filter', async () => {
    const { pq, puller, consume, loop } = setup({ tags: 'A || B' });
    const tagged = ['A', 'C', 'B', 'AB'].map((tag, i) => record(i, { properties: { TAGS: tag } }));
    puller.thenAnswer(() => found(tagged, 4));
    const running = loop.run();
    await vi.waitFor(() => expect(consume.batches).toHaveLength(1));
    expect(consume.batches[0]).toEqual([0, 2]);
    pq.abort();
    await running;
  });

  it('OFFSET_ILLEGAL hands the broker offset to the repair and ends the loop', async () => {
    const { pq, puller, loop, offsetIllegal } = setup();
    puller.thenAnswer(() => none(PullStatus.OFFSET_ILLEGAL, 42));
    await loop.run();
    expect(offsetIllegal).toHaveBeenCalledWith(pq, 42);
    expect(puller.requests).toHaveLength(1);
  });

  it('after a flow-control error pulls again soon; after another error waits pullErrorDelayMs', async () => {
    vi.useFakeTimers();
    const { pq, puller, loop, group } = setup({}, {}, false, { pullFlowControlDelayMs: 20, pullErrorDelayMs: 1_000 });
    puller
      .thenAnswer(() => new BrokerError('flow control', { responseCode: 215, kind: 'flow-control' }))
      .thenAnswer(() => new BrokerError('busy', { responseCode: 2 }));
    const running = loop.run();
    await expectTimeline(
      () => puller.requests.length,
      [
        [0, 1],
        [25, 2],
        [900, 2],
        [150, 3],
      ],
    );
    expect(eventsOf(group, 'consumer.error').map((e) => e.where)).toEqual(['pull', 'pull']);
    pq.abort();
    await running;
  });

  it('waits while paused, and pulls again when resumed', async () => {
    const gate = deferred();
    let paused = true;
    const { pq, puller, loop } = setup({}, { whenRunning: () => (paused ? gate.promise : undefined) });
    const running = loop.run();
    await new Promise((r) => setImmediate(r));
    expect(puller.requests).toHaveLength(0);
    paused = false;
    gate.resolve();
    await vi.waitFor(() => expect(puller.requests).toHaveLength(1));
    pq.abort();
    await running;
  });

  it('drops an answer that arrives when the app budget is already full, and pulls the same offset once there is room', async () => {
    const { group, pq, puller, consume, loop } = setup();
    const budget = new ByteBudget(4_096);
    Object.assign(group, { budget });
    const running = loop.run();
    await vi.waitFor(() => expect(puller.requests).toHaveLength(1));
    // While this pull is held, another queue's answer fills the budget (and overshoots it by part of a message, as
    // the broker returns at least one); then this pull is answered too.
    const reservedByOthers = budget.reserve(budget.room());
    const others = reservedByOthers + 2_000;
    budget.settle(reservedByOthers, others);
    puller.thenAnswer(() => found(records(0, 3), 3));
    await vi.waitFor(() => expect(budget.inUse).toBe(others));
    await new Promise((r) => setImmediate(r));
    expect(consume.batches).toEqual([]);
    expect(pq.nextOffset).toBe(0);
    expect(puller.requests).toHaveLength(1);
    budget.release(others);
    puller.thenAnswer(() => found(records(0, 3), 3));
    await vi.waitFor(() => expect(consume.batches).toEqual([[0, 1, 2]]));
    expect(puller.requests[1]!.offset).toBe(0);
    expect(budget.peakInUse).toBeLessThanOrEqual(budget.limit + 2_000);
    pq.abort();
    await running;
  });
});
