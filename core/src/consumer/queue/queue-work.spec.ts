import { describe, expect, it } from 'vitest';
import { retryTopicOf } from '../../model/constants';
import type { ConsumedMessage } from '../../model/consumed-message';
import type { Codec } from '../../spi/codec';
import { ConsumeProgress } from '../progress/consume-progress';
import { MQ, MemoryOffsetStore, processQueue, record, records, testGroup } from '../runtime.fixture';
import { QueueWork } from './queue-work';

const upper: Codec = {
  name: 'upper',
  decode: (body) => body.toString('utf8').toUpperCase(),
  encode: (payload) => Buffer.from(String(payload)),
};

function setup(codecOf: (topic: string) => Codec = () => upper) {
  const group = testGroup();
  const progress = new ConsumeProgress(group, new MemoryOffsetStore(), false);
  const lookups: string[] = [];
  const work = new QueueWork(
    group.budget,
    progress,
    (_pq, r) => {
      lookups.push(r.properties.RETRY_TOPIC ?? r.topic);
      return codecOf(r.properties.RETRY_TOPIC ?? r.topic);
    },
    'ns',
  );
  return { group, progress, work, lookups };
}

describe('QueueWork', () => {
  it("intake puts a batch into the queue, skips a retried pull's repeats, and wraps with one codec lookup", () => {
    const { group, progress, work, lookups } = setup();
    const pq = processQueue(group, progress);
    const into: ConsumedMessage[] = [];
    const bytes = work.intake(pq, records(0, 3), into);
    expect(work.intake(pq, records(1, 4), into)).toBe(bytes / 3);
    expect(into.map((m) => m.queueOffset)).toEqual([0, 1, 2, 3]);
    expect(pq.msgCount).toBe(4);
    expect(lookups).toHaveLength(2); // once per batch, not per message
    expect(into[0]!.payload).toBe(into[0]!.record.body.toString('utf8').toUpperCase());
  });

  it("a retry queue's records are each wrapped with their original topic's codec", () => {
    const { group, progress, work, lookups } = setup();
    const retry = { ...MQ, topic: retryTopicOf('g') };
    const pq = processQueue(group, progress, 0, retry);
    work.intake(
      pq,
      [
        record(0, { mq: retry, properties: { RETRY_TOPIC: 'T' } }),
        record(1, { mq: retry, properties: { RETRY_TOPIC: 'U' } }),
      ],
      [],
    );
    expect(lookups).toEqual(['T', 'U']);
  });

  it('finish takes messages out, gives their bytes back, and moves the offset past the smallest unfinished one', () => {
    const { group, progress, work } = setup();
    const pq = processQueue(group, progress);
    const into: ConsumedMessage[] = [];
    const bytes = work.intake(pq, records(0, 4), into);
    group.budget.reserve(bytes);
    work.finish(pq, into, 1, 3);
    expect(pq.progress.committable).toBe(0);
    expect(group.budget.inUse).toBe(bytes / 2);
    work.finish(pq, into, 0, 1);
    expect(pq.progress.committable).toBe(3);
    work.finish(pq, into, 0, 1); // a late second result of the same message counts nothing
    expect(group.budget.inUse).toBe(bytes / 4);
  });

  it('close drops the queue and its cache; with advance the offset first follows what finished', () => {
    const { group, progress, work } = setup();
    const released = processQueue(group, progress);
    const crashed = processQueue(group, progress, 0, { ...MQ, queueId: 1 });
    const into: ConsumedMessage[] = [];
    group.budget.reserve(work.intake(released, records(0, 2), into) * 2);
    work.intake(crashed, records(0, 2, { ...MQ, queueId: 1 }), []);
    released.remove([into[0]!.seq]);
    work.close(released, true);
    work.close(crashed, false);
    expect(released.progress.committable).toBe(1);
    expect(crashed.progress.committable).toBe(0);
    expect([released.dropped, crashed.dropped]).toEqual([true, true]);
    expect(released.msgCount + crashed.msgCount).toBe(0);
    // Finishing a dropped queue's messages afterwards changes nothing.
    work.finish(released, into, 1, 2);
    expect(released.progress.committable).toBe(1);
  });
});
