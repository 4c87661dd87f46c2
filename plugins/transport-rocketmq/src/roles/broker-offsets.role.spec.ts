import { waitFor } from '@mqkit/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { RequestCode } from '../protocol/remoting-codes';
import type { RemotingCommand } from '../protocol/remoting-command';
import type { FakePeer } from '../remoting/fake-remoting-server.fixture';
import { FakeCluster } from '../transport/fake-cluster.fixture';
import { RocketMqBrokerOffsets } from './broker-offsets.role';
import { CommitLedger } from './commit-ledger';

let cluster: FakeCluster;
afterEach(async () => cluster?.stop());

const mq = { topic: 'T', brokerName: 'broker-a', queueId: 2 };

async function setup() {
  cluster = await FakeCluster.start(['broker-a']);
  cluster.routes.set('T', [{ name: 'broker-a', queues: 4 }]);
  const ledger = new CommitLedger();
  return { offsets: new RocketMqBrokerOffsets(cluster.session(), ledger), ledger };
}

describe('RocketMqBrokerOffsets', () => {
  it('queries with setZeroIfNotFound=false: an offset, or -1 for QUERY_NOT_FOUND', async () => {
    const { offsets } = await setup();
    cluster.onBroker = (_n, request, peer) =>
      request.extFields.consumerGroup === 'known'
        ? peer.reply(request, { extFields: { offset: '17' } })
        : peer.reply(request, { code: 22 });
    expect(await offsets.queryConsumerOffset('known', mq)).toBe(17);
    expect(await offsets.queryConsumerOffset('new', mq)).toBe(-1);
    expect(cluster.received('broker-a', RequestCode.QUERY_CONSUMER_OFFSET)[0]!.extFields).toEqual({
      consumerGroup: 'known',
      topic: 'T',
      queueId: '2',
      setZeroIfNotFound: 'false',
      bname: 'broker-a',
    });
  });

  it('reads min, max and search-by-time offsets as checked numbers', async () => {
    const { offsets } = await setup();
    const answers: Record<number, string> = {
      [RequestCode.GET_MIN_OFFSET]: '3',
      [RequestCode.GET_MAX_OFFSET]: '9007199254740991',
      [RequestCode.SEARCH_OFFSET_BY_TIMESTAMP]: '5',
    };
    cluster.onBroker = (_n, request, peer) => peer.reply(request, { extFields: { offset: answers[request.code]! } });
    expect(await offsets.minOffset(mq)).toBe(3);
    expect(await offsets.maxOffset(mq)).toBe(Number.MAX_SAFE_INTEGER);
    expect(await offsets.searchOffset(mq, 1_700_000_000_000)).toBe(5);
    expect(cluster.received('broker-a', RequestCode.SEARCH_OFFSET_BY_TIMESTAMP)[0]!.extFields).toEqual({
      topic: 'T',
      queueId: '2',
      timestamp: '1700000000000',
      bname: 'broker-a',
    });
    answers[RequestCode.GET_MAX_OFFSET] = '9007199254740993';
    await expect(offsets.maxOffset(mq)).rejects.toMatchObject({ name: 'UnsafeLongError', field: 'offset' });
  });

  it("commits a group's topic on one broker strictly one after the other; another topic goes in parallel", async () => {
    const { offsets } = await setup();
    cluster.routes.set('U', [{ name: 'broker-a', queues: 1 }]);
    const held: Array<[RemotingCommand, FakePeer]> = [];
    cluster.onBroker = (_n, request, peer) => held.push([request, peer]);
    const sent = () => held.map(([r]) => `${r.extFields.topic}/${r.extFields.queueId}@${r.extFields.commitOffset}`);
    // Queue 2 twice (the older commit must not land last) and queue 3: a broker making the group's first table for
    // topic T on two threads at once would keep only one queue of the two.
    const first = offsets.commitConsumerOffset('g', mq, 10);
    const second = offsets.commitConsumerOffset('g', mq, 12);
    const other = offsets.commitConsumerOffset('g', { ...mq, queueId: 3 }, 1);
    const elsewhere = offsets.commitConsumerOffset('g', { ...mq, topic: 'U', queueId: 0 }, 7);
    await waitFor(() => held.length === 2);
    expect(sent()).toEqual(['T/2@10', 'U/0@7']);
    held[0]![1].reply(held[0]![0]);
    await first;
    await waitFor(() => held.length === 3);
    expect(held[2]![0].extFields).toEqual({
      consumerGroup: 'g',
      topic: 'T',
      queueId: '2',
      commitOffset: '12',
      bname: 'broker-a',
    });
    held[2]![1].reply(held[2]![0]);
    await second;
    await waitFor(() => held.length === 4);
    expect(sent()[3]).toBe('T/3@1');
    held[3]![1].reply(held[3]![0]);
    held[1]![1].reply(held[1]![0]);
    await Promise.all([other, elsewhere]);
  });

  it("a refused commit rejects with the broker's code and does not block the next one", async () => {
    const { offsets } = await setup();
    let refuse = true;
    cluster.onBroker = (_n, request, peer) =>
      peer.reply(request, refuse ? { code: 26, remark: 'Group g not exist!' } : {});
    await expect(offsets.commitConsumerOffset('g', mq, 10)).rejects.toMatchObject({
      name: 'BrokerError',
      responseCode: 26,
    });
    refuse = false;
    await offsets.commitConsumerOffset('g', mq, 11);
    const sent = cluster.received('broker-a', RequestCode.UPDATE_CONSUMER_OFFSET).map((r) => r.extFields.commitOffset);
    expect(sent).toEqual(['10', '11']);
  });
});
