import { parseSubscription, type PullRequest } from '@mqkit/core';
import { waitFor } from '@mqkit/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeMessageRecord } from '../protocol/message-record.encoder';
import { RequestCode } from '../protocol/remoting-codes';
import type { RemotingEvent } from '../remoting/remoting-events';
import { FakeRemotingServer, type FakePeer } from '../remoting/fake-remoting-server.fixture';
import type { RemotingCommand } from '../protocol/remoting-command';
import { FakeCluster } from '../transport/fake-cluster.fixture';
import { RocketMqMessagePuller } from './message-puller.role';

let cluster: FakeCluster;
const extra: FakeRemotingServer[] = [];
afterEach(async () => {
  await cluster?.stop();
  await Promise.all(extra.splice(0).map((s) => s.stop()));
});

const mq = { topic: 'T', brokerName: 'broker-a', queueId: 1 };
const base: PullRequest = {
  group: 'g',
  mq,
  offset: 5,
  maxMsgs: 32,
  maxBytes: 65536,
  subscription: parseSubscription('T', 'A || B', 42),
  suspendMs: 1000,
  timeoutMs: 3000,
};

function found(request: RemotingCommand, peer: FakePeer, extFields: Record<string, string> = {}): void {
  const body = encodeMessageRecord({
    topic: 'T',
    queueId: 1,
    queueOffset: 5,
    commitLogOffset: 1000,
    body: Buffer.from('x'),
    properties: { TAGS: 'A' },
    bornTimestamp: 1,
    bornHost: '127.0.0.1:1',
    storeTimestamp: 2,
    storeHost: '127.0.0.1:10911',
  });
  peer.reply(request, {
    code: 0,
    body,
    extFields: { nextBeginOffset: '6', minOffset: '0', maxOffset: '6', suggestWhichBrokerId: '0', ...extFields },
  });
}

async function setup() {
  cluster = await FakeCluster.start(['broker-a']);
  cluster.routes.set('T', [{ name: 'broker-a', queues: 2 }]);
  const session = cluster.session();
  return { session, puller: new RocketMqMessagePuller(session) };
}

describe('RocketMqMessagePuller', () => {
  it('sends SUSPEND | SUBSCRIPTION | COMMIT_OFFSET with the expression and subVersion, and decodes what it finds', async () => {
    const { puller } = await setup();
    cluster.onBroker = (_name, request, peer) => found(request, peer);
    const result = await puller.pull({ ...base, commitOffset: 3 }, new AbortController().signal);
    expect(result).toMatchObject({ status: 'FOUND', nextBeginOffset: 6, minOffset: 0, maxOffset: 6 });
    expect(result.messages).toHaveLength(1);
    expect(result.messages[0]).toMatchObject({ topic: 'T', brokerName: 'broker-a', queueId: 1, queueOffset: 5 });
    const [pull] = cluster.received('broker-a', RequestCode.PULL_MESSAGE);
    expect(pull!.extFields).toMatchObject({
      consumerGroup: 'g',
      topic: 'T',
      queueId: '1',
      queueOffset: '5',
      maxMsgNums: '32',
      sysFlag: String(1 | 2 | 4),
      commitOffset: '3',
      suspendTimeoutMillis: '1000',
      subscription: 'A || B',
      subVersion: '42',
      expressionType: 'TAG',
      maxMsgBytes: '65536',
    });
  });

  it('an abort ends a held pull at once; the connection stays open and the late answer is dropped', async () => {
    const { puller, session } = await setup();
    const held: Array<() => void> = [];
    cluster.onBroker = (_name, request, peer) => held.push(() => found(request, peer));
    const events: RemotingEvent[] = [];
    session.remoting.events$.subscribe((e) => events.push(e));
    const controller = new AbortController();
    const pull = puller.pull(base, controller.signal);
    await waitFor(() => held.length === 1);
    controller.abort(new Error('released'));
    await expect(pull).rejects.toThrow('released');
    held[0]!();
    await waitFor(() => events.some((e) => e.type === 'unmatched-response'));
    expect(events.some((e) => e.type === 'disconnected')).toBe(false);
    cluster.onBroker = (_name, request, peer) => found(request, peer);
    expect((await puller.pull(base, new AbortController().signal)).status).toBe('FOUND');
    expect(cluster.broker('broker-a').peers).toHaveLength(1);
  });

  it("waits past the broker's 5 s hold scan: a short client timeout is stretched to suspend + 5 s + a request timeout", async () => {
    const { puller } = await setup();
    const held: Array<() => void> = [];
    cluster.onBroker = (_name, request, peer) =>
      held.push(() =>
        peer.reply(request, { code: 19, extFields: { nextBeginOffset: '5', minOffset: '0', maxOffset: '5' } }),
      );
    const pull = puller.pull({ ...base, suspendMs: 10, timeoutMs: 50 }, new AbortController().signal);
    await waitFor(() => held.length === 1);
    await new Promise((r) => setTimeout(r, 200));
    held[0]!();
    expect((await pull).status).toBe('NO_NEW_MSG');
  });

  it('carries a commit only when core gave the pull one', async () => {
    const { puller } = await setup();
    cluster.onBroker = (_name, request, peer) => found(request, peer);
    await puller.pull(base, new AbortController().signal);
    await puller.pull({ ...base, commitOffset: 4 }, new AbortController().signal);
    const pulls = cluster.received('broker-a', RequestCode.PULL_MESSAGE);
    expect(pulls.map((r) => Number(r.extFields.sysFlag) & 1)).toEqual([0, 1]);
    expect(pulls[1]!.extFields.commitOffset).toBe('4');
  });

  it('pulls from the broker the last answer suggested (a slave), without commits, and back to the master', async () => {
    const { puller } = await setup();
    const slave = await new FakeRemotingServer().start();
    extra.push(slave);
    cluster.routes.set('T', [{ name: 'broker-a', queues: 2, members: { 0: cluster.broker('broker-a'), 1: slave } }]);
    cluster.onBroker = (_name, request, peer) => found(request, peer, { suggestWhichBrokerId: '1' });
    slave.onRequest = (request, peer) => found(request, peer, { suggestWhichBrokerId: '0' });
    await puller.pull({ ...base, commitOffset: 2 }, new AbortController().signal);
    await puller.pull({ ...base, commitOffset: 3 }, new AbortController().signal);
    await puller.pull({ ...base, commitOffset: 4 }, new AbortController().signal);
    expect(cluster.received('broker-a', RequestCode.PULL_MESSAGE)).toHaveLength(2);
    expect(slave.requests.map((r) => Number(r.extFields.sysFlag) & 1)).toEqual([0]);
  });

  it('a slave that refuses a pull (a topic it has not synced yet): the pull goes to the master at once, and its suggestions are ignored for a while', async () => {
    const { puller } = await setup();
    const slave = await new FakeRemotingServer().start();
    extra.push(slave);
    cluster.routes.set('T', [{ name: 'broker-a', queues: 2, members: { 0: cluster.broker('broker-a'), 1: slave } }]);
    cluster.onBroker = (_name, request, peer) => found(request, peer, { suggestWhichBrokerId: '1' });
    slave.onRequest = (request, peer) =>
      peer.reply(request, { code: 17, remark: 'topic[T] not exist, apply first please!' });
    for (let i = 0; i < 4; i++) expect((await puller.pull(base, new AbortController().signal)).status).toBe('FOUND');
    // First pull: the master (suggests the slave); second: the slave refuses, the master answers; then the master.
    expect(slave.requests).toHaveLength(1);
    expect(cluster.received('broker-a', RequestCode.PULL_MESSAGE)).toHaveLength(4);
  });

  it('a slave that cannot hold the pull (PULL_RETRY_IMMEDIATELY, nothing moved) is waited on instead of pulled in a loop', async () => {
    const { puller, session } = await setup();
    const slave = await new FakeRemotingServer().start();
    extra.push(slave);
    // The master is gone: only the slave is routed.
    cluster.routes.set('T', [{ name: 'broker-a', queues: 2, members: { 1: slave } }]);
    slave.onRequest = (request, peer) =>
      peer.reply(request, {
        code: 20,
        extFields: { nextBeginOffset: '5', minOffset: '0', maxOffset: '5', suggestWhichBrokerId: '0' },
      });
    const moves: number[] = [];
    session.events.on('rocketmq.pull-broker', (e) => moves.push(e.brokerId));
    const started = Date.now();
    const result = await puller.pull({ ...base, suspendMs: 300 }, new AbortController().signal);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(result.status).toBe('NO_NEW_MSG');
    expect(slave.requests).toHaveLength(1);
    expect(moves).toEqual([1]);
    // An abort ends the wait at once.
    const controller = new AbortController();
    const pending = puller.pull({ ...base, suspendMs: 10_000 }, controller.signal);
    await waitFor(() => slave.requests.length === 2);
    controller.abort(new Error('released'));
    await expect(pending).rejects.toThrow('released');
  });

  it("maps the broker's error codes to BrokerError and a vanished broker to BrokerNotFoundError", async () => {
    const { puller } = await setup();
    cluster.onBroker = (_name, request, peer) => peer.reply(request, { code: 17, remark: 'topic not exist' });
    await expect(puller.pull(base, new AbortController().signal)).rejects.toMatchObject({
      name: 'BrokerError',
      responseCode: 17,
      brokerName: 'broker-a',
    });
    await expect(
      puller.pull({ ...base, mq: { ...mq, brokerName: 'broker-z' } }, new AbortController().signal),
    ).rejects.toMatchObject({ name: 'BrokerNotFoundError', retriable: true });
  });
});
