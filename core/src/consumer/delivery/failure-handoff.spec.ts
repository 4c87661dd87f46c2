import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { jsonCodec } from '../../definition/json.codec';
import { ConsumedMessage } from '../../model/consumed-message';
import type { ConsumerOptions } from '../../options/consumer-options';
import type { RetryChannel } from '../../spi/transport.roles';
import { ConsumeProgress } from '../progress/consume-progress';
import type { ProcessQueue } from '../queue/process-queue';
import { MemoryOffsetStore, eventsOf, processQueue, record, testGroup, type TestGroup } from '../runtime.fixture';
import { FailureHandoff } from './failure-handoff';

type SendBack = Parameters<RetryChannel['sendBack']>[0];

/** A retry channel that takes every send-back, or refuses those of the offsets in `refuse`. */
class FakeRetry implements RetryChannel {
  readonly sent: SendBack[] = [];
  readonly refuse = new Set<number>();

  async sendBack(request: SendBack): Promise<void> {
    if (this.refuse.has(request.message.queueOffset)) throw new Error(`offset ${request.message.queueOffset} refused`);
    this.sent.push(request);
  }
}

let group: TestGroup;
let pq: ProcessQueue;
let retry: FakeRetry;
let resubmitted: { pq: ProcessQueue; offsets: number[] }[];
let handoff: FailureHandoff;

/** A group with these options, a queue of it, and a hand-off (without a retry channel when `channel` is null). */
function setUp(options: Partial<ConsumerOptions> = {}, channel: RetryChannel | null = retry): void {
  group = testGroup(options);
  pq = processQueue(group, new ConsumeProgress(group, new MemoryOffsetStore(), false));
  resubmitted = [];
  handoff = new FailureHandoff(group, channel ?? undefined, (q, messages) =>
    resubmitted.push({ pq: q, offsets: messages.map((m) => m.queueOffset) }),
  );
}

/** Messages at these offsets put into the queue (so it holds them), with the broker's reconsumeTimes. */
function cached(offsets: number[], reconsumeTimes = 0): ConsumedMessage[] {
  const out: ConsumedMessage[] = [];
  pq.put(
    offsets.map((offset) => record(offset, { reconsumeTimes })),
    (r, seq) => out.push(new ConsumedMessage(r, pq.mq, jsonCodec, seq)),
  );
  return out;
}

beforeEach(() => {
  vi.useFakeTimers();
  retry = new FakeRetry();
});

afterEach(() => {
  handoff.close();
  vi.useRealTimers();
});

describe('FailureHandoff in CLUSTERING: failures go back to the broker', () => {
  it("sends each failure back with the group, the delay level, the group's maxReconsumeTimes and the request timeout", async () => {
    setUp({ maxReconsumeTimes: 5 });
    const failed = cached([0, 1]);
    expect(await handoff.handOff(pq, failed, 3)).toEqual(failed);
    expect(retry.sent).toEqual(
      failed.map((m) => ({
        group: 'g',
        message: m.record,
        delayLevel: 3,
        maxReconsumeTimes: 5,
        timeoutMs: group.profile.requestTimeoutMs,
      })),
    );
    expect(resubmitted).toEqual([]);
  });

  it("sends RocketMQ's 16 as the limit when maxReconsumeTimes is -1", async () => {
    setUp({ maxReconsumeTimes: -1 });
    await handoff.handOff(pq, cached([0]), 0);
    expect(retry.sent.map((r) => r.maxReconsumeTimes)).toEqual([16]);
  });

  it('reports each send-back as a retry, a dead letter once the broker counted maxReconsumeTimes or the level is -1', async () => {
    setUp({ maxReconsumeTimes: 2 });
    await handoff.handOff(pq, cached([0]), 0);
    await handoff.handOff(pq, cached([1], 2), 0);
    await handoff.handOff(pq, cached([2]), -1);
    expect(eventsOf(group, 'consumer.retry')).toEqual([
      { group: 'g', msgId: 'K0', topic: 'T', reconsumeTimes: 0, delayLevel: 0, local: false, deadLetter: false },
      { group: 'g', msgId: 'K1', topic: 'T', reconsumeTimes: 2, delayLevel: 0, local: false, deadLetter: true },
      { group: 'g', msgId: 'K2', topic: 'T', reconsumeTimes: 0, delayLevel: -1, local: false, deadLetter: true },
    ]);
  });

  it('keeps the failures of a queue being released unfinished, and sends nothing', async () => {
    setUp();
    const failed = cached([0]);
    pq.abort();
    expect(await handoff.handOff(pq, failed, 0)).toEqual([]);
    expect(retry.sent).toEqual([]);
    expect(eventsOf(group, 'consumer.retry')).toEqual([]);
  });
});

describe('FailureHandoff: a send-back that fails is retried here', () => {
  it('reports the failed send-back, keeps the message unfinished, and consumes it again after localRetryDelayMs', async () => {
    setUp();
    const failed = cached([0, 1, 2]);
    retry.refuse.add(1);
    const done = await handoff.handOff(pq, failed, 0);
    expect(done.map((m) => m.queueOffset)).toEqual([0, 2]);
    expect(eventsOf(group, 'consumer.error')).toMatchObject([{ where: 'send-back', mq: pq.mq }]);
    // Counted as one more attempt: the next call sees reconsumeTimes 1.
    expect(failed[1]!.localReconsumeTimes).toBe(1);
    expect(eventsOf(group, 'consumer.retry').filter((e) => e.local)).toEqual([
      { group: 'g', msgId: 'K1', topic: 'T', reconsumeTimes: 1, delayLevel: 0, local: true, deadLetter: false },
    ]);
    await vi.advanceTimersByTimeAsync(group.profile.localRetryDelayMs - 1);
    expect(resubmitted).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(resubmitted).toEqual([{ pq, offsets: [1] }]);
  });

  it('retries everything here without a retry channel', async () => {
    setUp({}, null);
    expect(await handoff.handOff(pq, cached([0, 1]), 0)).toEqual([]);
    await vi.advanceTimersByTimeAsync(group.profile.localRetryDelayMs);
    expect(resubmitted).toEqual([{ pq, offsets: [0, 1] }]);
  });

  it('does not consume again what finished meanwhile, nor anything of a queue released meanwhile', async () => {
    setUp({}, null);
    const failed = cached([0, 1]);
    await handoff.handOff(pq, failed, 0);
    pq.remove([failed[0]!.seq]);
    await vi.advanceTimersByTimeAsync(group.profile.localRetryDelayMs);
    expect(resubmitted).toEqual([{ pq, offsets: [1] }]);

    await handoff.handOff(pq, failed.slice(1), 0);
    pq.abort();
    await vi.advanceTimersByTimeAsync(group.profile.localRetryDelayMs);
    expect(resubmitted).toHaveLength(1);
  });

  it('close() cancels the local retries still waiting', async () => {
    setUp({}, null);
    await handoff.handOff(pq, cached([0]), 0);
    handoff.close();
    await vi.advanceTimersByTimeAsync(group.profile.localRetryDelayMs);
    expect(resubmitted).toEqual([]);
  });
});

describe('FailureHandoff in BROADCASTING: no retry', () => {
  it('reports every failure as skipped and is done with it, sending nothing back', async () => {
    setUp({ messageModel: 'BROADCASTING' });
    const failed = cached([0, 1]);
    expect(await handoff.handOff(pq, failed, 0)).toEqual(failed);
    expect(retry.sent).toEqual([]);
    const skipped = eventsOf(group, 'consumer.error');
    expect(skipped.map((e) => [e.where, e.mq])).toEqual([
      ['broadcast-failure-skipped', pq.mq],
      ['broadcast-failure-skipped', pq.mq],
    ]);
    expect(skipped[0]!.error.message).toContain('K0');
    await vi.advanceTimersByTimeAsync(group.profile.localRetryDelayMs);
    expect(resubmitted).toEqual([]);
  });
});
