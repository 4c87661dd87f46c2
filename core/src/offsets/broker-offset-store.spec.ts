import { describe, expect, it } from 'vitest';
import { EventBus } from '../events/event-bus';
import { OffsetStoreError } from '../errors/offset-store.error';
import type { MessageQueue } from '../model/message-queue';
import type { BrokerOffsets } from '../spi/transport.roles';
import { BrokerOffsetStore } from './broker-offset-store';

const a: MessageQueue = { topic: 'T', brokerName: 'b', queueId: 0 };
const b: MessageQueue = { topic: 'T', brokerName: 'b', queueId: 1 };

/** A broker that records every commit it is sent, as queueId=offset, and fails those of `failing` queue ids. */
function recordingBroker(stored: Record<number, number> = {}, failing = new Set<number>()) {
  const commits: string[] = [];
  const broker: BrokerOffsets = {
    queryConsumerOffset: async (_group, mq) => {
      if (failing.has(mq.queueId)) throw new Error('broker down');
      return stored[mq.queueId] ?? -1;
    },
    commitConsumerOffset: async (_group, mq, offset) => {
      if (failing.has(mq.queueId)) throw new Error('broker down');
      commits.push(`${mq.queueId}=${offset}`);
    },
    minOffset: async () => 0,
    maxOffset: async () => 0,
    searchOffset: async () => 0,
  };
  return { broker, commits };
}

describe('BrokerOffsetStore', () => {
  it('reads what the broker holds, -1 for none, and fails a read with an OffsetStoreError naming the queue', async () => {
    const { broker } = recordingBroker({ 1: 40 }, new Set([2]));
    const store = new BrokerOffsetStore('g', broker, new EventBus());
    expect(await store.read(b)).toBe(40);
    expect(await store.read(a)).toBe(-1);
    const error = await store.read({ ...a, queueId: 2 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OffsetStoreError);
    expect((error as OffsetStoreError).key).toBe('T@b#2');
  });

  it('commits every entry as given, lowering or not (the broker overwrites), and reports each commit', async () => {
    const events = new EventBus();
    const reported: string[] = [];
    events.on('consumer.commit', (e) => reported.push(`${e.mq.queueId}=${e.offset}`));
    const { broker, commits } = recordingBroker({ 0: 50 });
    const store = new BrokerOffsetStore('g', broker, events);
    await store.write([
      { mq: a, offset: 10, lowering: true },
      { mq: b, offset: 7, lowering: false },
    ]);
    await store.write([]);
    expect(commits.sort()).toEqual(['0=10', '1=7']);
    expect(reported.sort()).toEqual(['0=10', '1=7']);
  });

  it('rejects once every commit answered when any failed, and reports the failure', async () => {
    const events = new EventBus();
    const errors: Error[] = [];
    events.on('offset-store.error', (e) => errors.push(e.error));
    const { broker, commits } = recordingBroker({}, new Set([1]));
    const store = new BrokerOffsetStore('g', broker, events);
    const write = store.write([
      { mq: a, offset: 5, lowering: false },
      { mq: b, offset: 6, lowering: false },
    ]);
    await expect(write).rejects.toThrow(/1 offset commit\(s\) of group g failed: broker down/);
    expect(commits).toEqual(['0=5']);
    expect(errors).toHaveLength(1);
  });
});
