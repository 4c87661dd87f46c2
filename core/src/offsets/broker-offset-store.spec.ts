import { afterEach, describe, expect, it, vi } from 'vitest';
import { EventBus } from '../events/event-bus';
import type { MessageQueue } from '../model/message-queue';
import type { BrokerOffsets } from '../spi/transport.roles';
import { BrokerOffsetStore, UNCHANGED_OFFSET_REFRESH_MS } from './broker-offset-store';

const a: MessageQueue = { topic: 'T', brokerName: 'b', queueId: 0 };
const b: MessageQueue = { topic: 'T', brokerName: 'b', queueId: 1 };

/** A broker that records every commit it is sent, as queueId=offset. */
function recordingBroker(stored: Record<number, number> = {}): BrokerOffsets & { commits: string[] } {
  const commits: string[] = [];
  return {
    commits,
    queryConsumerOffset: async (_group, mq) => stored[mq.queueId] ?? -1,
    commitConsumerOffset: async (_group, mq, offset) => void commits.push(`${mq.queueId}=${offset}`),
    minOffset: async () => 0,
    maxOffset: async () => 0,
    searchOffset: async () => 0,
  };
}

afterEach(() => vi.useRealTimers());

describe('BrokerOffsetStore persists', () => {
  it('changed offsets at every persist, unchanged ones only once they went UNCHANGED_OFFSET_REFRESH_MS unwritten', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const broker = recordingBroker({ 1: 40 });
    const store = new BrokerOffsetStore('g', broker, new EventBus());
    store.update(a, 10, { increaseOnly: true });
    expect(await store.read(b, 'store')).toBe(40);
    await store.persist([a, b]);
    // b was read from the broker: it holds that value already.
    expect(broker.commits).toEqual(['0=10']);
    await store.persist([a, b]);
    expect(broker.commits).toEqual(['0=10']);
    store.update(a, 11, { increaseOnly: true });
    await store.persist([a, b]);
    expect(broker.commits).toEqual(['0=10', '0=11']);
    vi.setSystemTime(Date.now() + UNCHANGED_OFFSET_REFRESH_MS);
    await store.persist([a, b]);
    expect(broker.commits.slice(2).sort()).toEqual(['0=11', '1=40']);
    await store.persist([a, b]);
    expect(broker.commits).toHaveLength(4);
  });

  it('every offset, changed or not, when asked for unchanged ones too (after a route change)', async () => {
    const broker = recordingBroker({ 1: 40 });
    const store = new BrokerOffsetStore('g', broker, new EventBus());
    store.update(a, 10, { increaseOnly: true });
    await store.read(b, 'store');
    await store.persist([a, b]);
    await store.persist([a, b], { unchanged: true });
    expect(broker.commits.slice(1).sort()).toEqual(['0=10', '1=40']);
  });

  it('a failed commit is written again at the next persist', async () => {
    const broker = recordingBroker();
    let fail = true;
    const commit = broker.commitConsumerOffset;
    broker.commitConsumerOffset = async (group, mq, offset) => {
      if (fail) throw new Error('broker down');
      return commit(group, mq, offset);
    };
    const store = new BrokerOffsetStore('g', broker, new EventBus());
    store.update(a, 5, { increaseOnly: true });
    await expect(store.persist([a])).rejects.toThrow(/1 offset commit\(s\) of group g failed/);
    fail = false;
    await store.persist([a]);
    expect(broker.commits).toEqual(['0=5']);
  });
});
