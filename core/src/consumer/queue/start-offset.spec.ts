import { describe, expect, it } from 'vitest';
import type { BrokerOffsets } from '../../spi/transport.roles';
import { computeStartOffset, LATE_QUEUE_MARGIN_MS } from './start-offset';
import { MQ, MemoryOffsetStore, testGroup } from '../runtime.fixture';

const broker: BrokerOffsets = {
  queryConsumerOffset: async () => -1,
  commitConsumerOffset: async () => undefined,
  minOffset: async () => 0,
  maxOffset: async () => 100,
  searchOffset: async () => 40,
};

describe('computeStartOffset', () => {
  it('stored offset first; without one, consumeFromWhere (LAST: max, FIRST: 0, TIMESTAMP: search); retry queues apart', async () => {
    const store = new MemoryOffsetStore();
    const last = testGroup().options;
    expect(await computeStartOffset(MQ, last, store, broker)).toBe(100);
    expect(await computeStartOffset({ ...MQ, topic: '%RETRY%g' }, last, store, broker)).toBe(0);
    expect(
      await computeStartOffset(MQ, testGroup({ consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' }).options, store, broker),
    ).toBe(0);
    expect(
      await computeStartOffset(MQ, testGroup({ consumeFromWhere: 'CONSUME_FROM_TIMESTAMP' }).options, store, broker),
    ).toBe(40);
    store.persisted.set('T/broker-a/0', 7);
    expect(await computeStartOffset(MQ, last, store, broker)).toBe(7);
  });

  it('what this member consumed wins over a lower or missing stored offset, never over a higher one', async () => {
    const store = new MemoryOffsetStore();
    const options = testGroup({ consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET' }).options;
    // A broker that lost its offsets: not the max offset (that would skip what was never consumed), but 60.
    expect(await computeStartOffset(MQ, options, store, broker, 60)).toBe(60);
    store.persisted.set('T/broker-a/0', 50);
    expect(await computeStartOffset(MQ, options, store, broker, 60)).toBe(60);
    store.persisted.set('T/broker-a/0', 80);
    expect(await computeStartOffset(MQ, options, store, broker, 60)).toBe(80);
  });

  it('a queue routed after the first lookup starts, under LAST with no offset, at what was stored since the last lookup that lacked it', async () => {
    const store = new MemoryOffsetStore();
    const last = testGroup().options;
    const searched: number[] = [];
    const searching: BrokerOffsets = {
      ...broker,
      searchOffset: async (_mq, t) => {
        searched.push(t);
        return 40;
      },
    };
    const lateSince = 1_000_000;
    expect(await computeStartOffset(MQ, last, store, searching, -1, lateSince)).toBe(40);
    expect(searched).toEqual([lateSince - LATE_QUEUE_MARGIN_MS]);
    // TIMESTAMP keeps its own search, FIRST is 0 anyway.
    const timestamp = testGroup({ consumeFromWhere: 'CONSUME_FROM_TIMESTAMP' }).options;
    expect(await computeStartOffset(MQ, timestamp, store, broker, -1, lateSince)).toBe(40);
    // An offset stored or consumed wins: a returning broker's queue is not read again.
    expect(await computeStartOffset(MQ, last, store, broker, 60, lateSince)).toBe(60);
    store.persisted.set('T/broker-a/0', 7);
    expect(await computeStartOffset(MQ, last, store, broker, -1, lateSince)).toBe(7);
  });
});
