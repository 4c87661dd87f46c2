import { parseSubscription, type ConsumerRegistration } from '@mqkit/core';
import { waitFor } from '@mqkit/core/testing';
import { firstValueFrom, filter } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { RequestCode } from '../protocol/remoting-codes';
import type { RemotingCommand } from '../protocol/remoting-command';
import { FakeRemotingServer, type FakePeer } from '../remoting/fake-remoting-server.fixture';
import { FakeCluster } from '../transport/fake-cluster.fixture';
import type { RocketMqSession } from '../transport/rocketmq-session';
import { RocketMqGroupMembership } from './group-membership.role';

let cluster: FakeCluster;
const extra: FakeRemotingServer[] = [];
afterEach(async () => {
  await cluster?.stop();
  await Promise.all(extra.splice(0).map((s) => s.stop()));
});

const registration = (topics: string[]): ConsumerRegistration => ({
  group: 'g',
  messageModel: 'CLUSTERING',
  consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
  subscriptions: [...topics.map((t) => parseSubscription(t, '*')), parseSubscription('%RETRY%g', '*')],
});

/** Resolves at the session's next connection to `address` (a reconnect after a drop included). */
const nextOpen = (session: RocketMqSession, address: string): Promise<unknown> =>
  firstValueFrom(session.remoting.events$.pipe(filter((e) => e.type === 'connected' && e.address === address)));

/** The heartbeats one accepted connection (one peer) carried. */
const beatsOn = (peer: FakePeer): RemotingCommand[] => peer.received.filter((r) => r.code === RequestCode.HEART_BEAT);

describe('RocketMqGroupMembership', () => {
  it('heartbeats every broker address (master and slave) of the subscribed topics, with the retry subscription', async () => {
    cluster = await FakeCluster.start(['broker-a', 'broker-b', 'broker-c']);
    const slave = await new FakeRemotingServer().start();
    extra.push(slave);
    cluster.routes.set('T', [
      { name: 'broker-a', queues: 1, members: { 0: cluster.broker('broker-a'), 1: slave } },
      { name: 'broker-b', queues: 1 },
    ]);
    const membership = new RocketMqGroupMembership(cluster.session({}, '10.0.0.1@app'));
    await membership.heartbeat([registration(['T'])]);
    expect(cluster.received('broker-a', RequestCode.HEART_BEAT)).toHaveLength(1);
    expect(cluster.received('broker-b', RequestCode.HEART_BEAT)).toHaveLength(1);
    expect(cluster.received('broker-c', RequestCode.HEART_BEAT)).toHaveLength(0);
    expect(slave.requests.filter((r) => r.code === RequestCode.HEART_BEAT)).toHaveLength(1);
    const body = JSON.parse(cluster.received('broker-a', RequestCode.HEART_BEAT)[0]!.body.toString());
    expect(body.clientID).toBe('10.0.0.1@app');
    expect(body.consumerDataSet[0].subscriptionDataSet.map((s: { topic: string }) => s.topic)).toEqual([
      'T',
      '%RETRY%g',
    ]);
    membership.close();
  });

  it('one broker failing does not fail the heartbeat; every broker failing does', async () => {
    cluster = await FakeCluster.start();
    cluster.routes.set('T', [
      { name: 'broker-a', queues: 1 },
      { name: 'broker-b', queues: 1 },
    ]);
    const session = cluster.session({ requestTimeoutMs: 500 });
    const errors: string[] = [];
    session.events.on('rocketmq.error', (e) => errors.push(e.where));
    const membership = new RocketMqGroupMembership(session);
    cluster.onBroker = (name, request, peer) => peer.reply(request, { code: name === 'broker-a' ? 1 : 0 });
    await membership.heartbeat([registration(['T'])]);
    expect(errors).toEqual(['heartbeat']);
    cluster.onBroker = (_name, request, peer) => peer.reply(request, { code: 1, remark: 'down' });
    await expect(membership.heartbeat([registration(['T'])])).rejects.toMatchObject({
      name: 'BrokerError',
      responseCode: 1,
    });
    membership.close();
  });

  it('a topic without a route yet is skipped, and its first route triggers a heartbeat', async () => {
    cluster = await FakeCluster.start(['broker-a']);
    const session = cluster.session({ routeRefreshMs: 20 });
    const membership = new RocketMqGroupMembership(session);
    await membership.heartbeat([registration(['T'])]);
    expect(cluster.received('broker-a', RequestCode.HEART_BEAT)).toHaveLength(0);
    session.start();
    cluster.routes.set('T', [{ name: 'broker-a', queues: 1 }]);
    await waitFor(() => cluster.received('broker-a', RequestCode.HEART_BEAT).length === 1);
    membership.close();
  });

  it('a producer group reaches each broker once, as soon as a route names it, not per send and not on the next route change', async () => {
    cluster = await FakeCluster.start(['broker-a', 'broker-b']);
    cluster.routes.set('T', [{ name: 'broker-a', queues: 1 }]);
    const session = cluster.session({ routeRefreshMs: 3_600_000 }, '10.0.0.1@tx');
    const membership = new RocketMqGroupMembership(session);
    const a = cluster.broker('broker-a').address;
    // A transactional producer's start: no route known yet, so nothing to send.
    await membership.heartbeat([], ['pg']);
    expect(cluster.received('broker-a', RequestCode.HEART_BEAT)).toHaveLength(0);
    // Its first send looks the topic up: the broker hears of the group before the send is answered.
    await session.routes.publishQueues('T');
    await waitFor(() => cluster.received('broker-a', RequestCode.HEART_BEAT).length === 1);
    const body = JSON.parse(cluster.received('broker-a', RequestCode.HEART_BEAT)[0]!.body.toString());
    expect(body).toMatchObject({ clientID: '10.0.0.1@tx', producerDataSet: [{ groupName: 'pg' }] });
    for (let i = 0; i < 5; i++) await session.routes.publishQueues('T');
    // A route change that names a new broker greets that one only.
    cluster.routes.set('T', [
      { name: 'broker-a', queues: 2 },
      { name: 'broker-b', queues: 1 },
    ]);
    await session.routes.fetch('T');
    await waitFor(() => cluster.received('broker-b', RequestCode.HEART_BEAT).length === 1);
    // One connection per address, in order: whatever was sent to broker-a before this request arrived before it.
    await session.request(a, { code: RequestCode.GET_MAX_OFFSET });
    expect(cluster.received('broker-a', RequestCode.HEART_BEAT)).toHaveLength(1);
    // The interval heartbeat still goes to every broker.
    await membership.heartbeat([], ['pg']);
    expect(cluster.received('broker-a', RequestCode.HEART_BEAT)).toHaveLength(2);
    expect(cluster.received('broker-b', RequestCode.HEART_BEAT)).toHaveLength(2);
    membership.close();
  });

  it('a client without producer groups sends no heartbeat for a route lookup', async () => {
    cluster = await FakeCluster.start(['broker-a']);
    cluster.routes.set('T', [{ name: 'broker-a', queues: 1 }]);
    const session = cluster.session({ routeRefreshMs: 3_600_000 });
    const membership = new RocketMqGroupMembership(session);
    await membership.heartbeat([], []);
    await session.routes.publishQueues('T');
    await session.request(cluster.broker('broker-a').address, { code: RequestCode.GET_MAX_OFFSET });
    expect(cluster.received('broker-a', RequestCode.HEART_BEAT)).toHaveLength(0);
    membership.close();
  });

  it("a consumer's first heartbeat that looks its topics up sends one heartbeat per broker, or a second when the broker refused the first", async () => {
    cluster = await FakeCluster.start(['broker-a']);
    cluster.routes.set('T', [{ name: 'broker-a', queues: 1 }]);
    const session = cluster.session({ routeRefreshMs: 3_600_000 });
    const membership = new RocketMqGroupMembership(session);
    // The route lookup greets broker-a with the producer group and the consumer: the heartbeat counts that one.
    await membership.heartbeat([registration(['T'])], ['pg']);
    const beats = cluster.received('broker-a', RequestCode.HEART_BEAT);
    expect(beats).toHaveLength(1);
    expect(JSON.parse(beats[0]!.body.toString())).toMatchObject({
      consumerDataSet: [{ groupName: 'g' }],
      producerDataSet: [{ groupName: 'pg' }],
    });
    membership.close();

    // Another client whose greeting the broker refuses: its heartbeat sends its own, and the refusal is reported.
    cluster.routes.set('U', [{ name: 'broker-a', queues: 1 }]);
    const other = cluster.session({ routeRefreshMs: 3_600_000 });
    const errors: string[] = [];
    other.events.on('rocketmq.error', (e) => errors.push(e.where));
    let refused = false;
    cluster.onBroker = (_name, request, peer) => {
      if (request.code === RequestCode.HEART_BEAT && !refused) {
        refused = true;
        peer.reply(request, { code: 1, remark: 'busy' });
      } else peer.reply(request);
    };
    const second = new RocketMqGroupMembership(other);
    await second.heartbeat([registration(['U'])], ['pg']);
    expect(cluster.received('broker-a', RequestCode.HEART_BEAT)).toHaveLength(3);
    expect(errors).toEqual(['heartbeat to a new broker']);
    second.close();
  });

  it('lists the group from a broker of the topic; "no consumer for this group" is an empty group', async () => {
    cluster = await FakeCluster.start(['broker-a']);
    cluster.routes.set('T', [{ name: 'broker-a', queues: 1 }]);
    const membership = new RocketMqGroupMembership(cluster.session());
    cluster.onBroker = (_name, request, peer) =>
      request.extFields.consumerGroup === 'g'
        ? peer.reply(request, { body: Buffer.from('{"consumerIdList":["10.0.0.2@b","10.0.0.1@a"]}') })
        : peer.reply(request, { code: 1, remark: `no consumer for this group, ${request.extFields.consumerGroup}` });
    expect(await membership.consumerIds('g', 'T')).toEqual(['10.0.0.2@b', '10.0.0.1@a']);
    expect(await membership.consumerIds('empty', 'T')).toEqual([]);
    expect(await membership.consumerIds('g', 'UNROUTED')).toEqual([]);
    cluster.onBroker = (_name, request, peer) => peer.reply(request, { code: 2, remark: 'busy' });
    await expect(membership.consumerIds('g', 'T')).rejects.toMatchObject({ responseCode: 2 });
    membership.close();
  });

  it("takes the union of every broker's list: a restarted broker that knows only some members does not shrink the group", async () => {
    cluster = await FakeCluster.start();
    cluster.routes.set('T', [
      { name: 'broker-a', queues: 1 },
      { name: 'broker-b', queues: 1 },
    ]);
    const membership = new RocketMqGroupMembership(cluster.session());
    const lists: Record<string, string[]> = {
      'broker-a': ['10.0.0.1@a', '10.0.0.2@b', '10.0.0.3@c'],
      'broker-b': ['10.0.0.3@c'],
    };
    cluster.onBroker = (name, request, peer) =>
      peer.reply(request, { body: Buffer.from(JSON.stringify({ consumerIdList: lists[name] })) });
    for (let i = 0; i < 5; i++)
      expect([...(await membership.consumerIds('g', 'T'))].sort()).toEqual(['10.0.0.1@a', '10.0.0.2@b', '10.0.0.3@c']);
    // One broker failing still answers from the others.
    cluster.onBroker = (name, request, peer) =>
      name === 'broker-a'
        ? peer.reply(request, { code: 2, remark: 'busy' })
        : peer.reply(request, { body: Buffer.from(JSON.stringify({ consumerIdList: lists[name] })) });
    expect(await membership.consumerIds('g', 'T')).toEqual(['10.0.0.3@c']);
    membership.close();
  });

  it("unregisters from every broker of the group's topics with clientID and consumerGroup", async () => {
    cluster = await FakeCluster.start();
    cluster.routes.set('T', [
      { name: 'broker-a', queues: 1 },
      { name: 'broker-b', queues: 1 },
    ]);
    const membership = new RocketMqGroupMembership(cluster.session({}, '10.0.0.1@app'));
    await membership.heartbeat([registration(['T'])]);
    await membership.unregister('g');
    for (const broker of ['broker-a', 'broker-b']) {
      expect(cluster.received(broker, RequestCode.UNREGISTER_CLIENT).map((r) => r.extFields)).toEqual([
        { clientID: '10.0.0.1@app', consumerGroup: 'g' },
      ]);
    }
    expect(membership.registration('g')).toBeUndefined();
    membership.close();
  });

  it('an unregister waits for the heartbeats still unanswered, and a heartbeat begun before it does not register the group again', async () => {
    cluster = await FakeCluster.start(['broker-a']);
    cluster.routes.set('T', [{ name: 'broker-a', queues: 1 }]);
    const membership = new RocketMqGroupMembership(cluster.session({}, '10.0.0.1@app'));
    await membership.heartbeat([registration(['T'])]);
    // The broker holds the next heartbeat: the unregister must not overtake it (the broker would run it after).
    const order: string[] = [];
    let answer!: () => void;
    cluster.onBroker = (_name, request, peer) => {
      order.push(
        request.code === RequestCode.HEART_BEAT
          ? 'heartbeat'
          : request.code === RequestCode.UNREGISTER_CLIENT
            ? 'unregister'
            : String(request.code),
      );
      if (request.code === RequestCode.HEART_BEAT) answer = () => peer.reply(request);
      else peer.reply(request);
    };
    const beating = membership.heartbeat([registration(['T'])]);
    await waitFor(() => order.includes('heartbeat'));
    const unregistering = membership.unregister('g');
    await new Promise((r) => setTimeout(r, 50));
    expect(order).toEqual(['heartbeat']);
    answer();
    await Promise.all([beating, unregistering]);
    expect(order).toEqual(['heartbeat', 'unregister']);
    // A heartbeat that was fetching routes when the group left sends nothing for it.
    cluster.routes.set('U', [{ name: 'broker-a', queues: 1 }]);
    const late = membership.heartbeat([registration(['U'])]);
    await membership.unregister('g');
    await late;
    expect(order.filter((code) => code === 'heartbeat')).toHaveLength(1);
    membership.close();
  });

  it('a connection that drops and opens again gets the heartbeat at once, producer and consumer groups, once', async () => {
    cluster = await FakeCluster.start(['broker-a']);
    cluster.routes.set('T', [{ name: 'broker-a', queues: 1 }]);
    const session = cluster.session({ routeRefreshMs: 3_600_000 }, '10.0.0.1@app');
    const membership = new RocketMqGroupMembership(session);
    const broker = cluster.broker('broker-a');
    await membership.heartbeat([registration(['T'])], ['pg']);
    // The first connection: the heartbeat (here the greeting of its route lookup) opened it, and nothing more.
    await session.request(broker.address, { code: RequestCode.GET_MAX_OFFSET });
    expect(beatsOn(broker.last)).toHaveLength(1);
    // A network blip (or a broker restart within the route poll): the broker closes the channel and forgets the
    // groups it registered; the client reconnects by itself, and no route changes.
    for (let blip = 1; blip <= 2; blip++) {
      const reopened = nextOpen(session, broker.address);
      broker.last.socket.destroy();
      await reopened;
      await waitFor(() => broker.peers.length === blip + 1 && beatsOn(broker.last).length > 0);
      expect(JSON.parse(beatsOn(broker.last)[0]!.body.toString())).toMatchObject({
        clientID: '10.0.0.1@app',
        consumerDataSet: [{ groupName: 'g', subscriptionDataSet: [{ topic: 'T' }, { topic: '%RETRY%g' }] }],
        producerDataSet: [{ groupName: 'pg' }],
      });
      // One per connection: what the client wrote before this request arrived before its answer.
      await session.request(broker.address, { code: RequestCode.GET_MAX_OFFSET });
      expect(beatsOn(broker.last)).toHaveLength(1);
    }
    // The broker knows the member on the new connection: the group's list asks it without registering first.
    cluster.onBroker = (_name, request, peer) =>
      peer.reply(request, { body: Buffer.from('{"consumerIdList":["10.0.0.1@app"]}') });
    expect(await membership.consumerIds('g', 'T')).toEqual(['10.0.0.1@app']);
    expect(beatsOn(broker.last)).toHaveLength(1);
    // The interval heartbeat still goes.
    await membership.heartbeat([registration(['T'])], ['pg']);
    expect(beatsOn(broker.last)).toHaveLength(2);
    expect(cluster.received('broker-a', RequestCode.HEART_BEAT)).toHaveLength(4);
    membership.close();
  });

  it("a consumer's connection that opens again gets its heartbeat; a failure is reported and left to the interval", async () => {
    cluster = await FakeCluster.start(['broker-a']);
    cluster.routes.set('T', [{ name: 'broker-a', queues: 1 }]);
    const session = cluster.session({ routeRefreshMs: 3_600_000 });
    const errors: { where: string; address?: string }[] = [];
    session.events.on('rocketmq.error', (e) => errors.push({ where: e.where, address: e.address }));
    const membership = new RocketMqGroupMembership(session);
    const broker = cluster.broker('broker-a');
    await membership.heartbeat([registration(['T'])]);
    let reopened = nextOpen(session, broker.address);
    broker.last.socket.destroy();
    await reopened;
    await waitFor(() => broker.peers.length === 2 && beatsOn(broker.last).length === 1);
    expect(JSON.parse(beatsOn(broker.last)[0]!.body.toString())).toMatchObject({
      consumerDataSet: [{ groupName: 'g' }],
      producerDataSet: [],
    });
    // The broker refuses the heartbeat of the next connection: reported, and the interval heartbeat sends again.
    cluster.onBroker = (_name, request, peer) =>
      peer.reply(request, request.code === RequestCode.HEART_BEAT ? { code: 1, remark: 'busy' } : {});
    reopened = nextOpen(session, broker.address);
    broker.last.socket.destroy();
    await reopened;
    await waitFor(() => errors.length === 1);
    expect(errors).toEqual([{ where: 'heartbeat on a new connection', address: broker.address }]);
    cluster.onBroker = (_name, request, peer) => peer.reply(request);
    await membership.heartbeat([registration(['T'])]);
    expect(beatsOn(broker.last)).toHaveLength(2);
    membership.close();
  });

  it('no heartbeat when a name server connection opens again, when a broker no subscribed topic routes does, or when there is nothing to register', async () => {
    cluster = await FakeCluster.start(['broker-a', 'broker-b']);
    cluster.routes.set('T', [{ name: 'broker-a', queues: 1 }]);
    cluster.routes.set('U', [{ name: 'broker-b', queues: 1 }]);
    const session = cluster.session({ routeRefreshMs: 3_600_000 });
    const membership = new RocketMqGroupMembership(session);
    const [a, b] = [cluster.broker('broker-a'), cluster.broker('broker-b')];
    // Nothing registered yet: connections open and reopen without heartbeats.
    await session.request(a.address, { code: RequestCode.GET_MAX_OFFSET });
    let reopened = nextOpen(session, a.address);
    a.last.socket.destroy();
    await reopened;
    await session.request(a.address, { code: RequestCode.GET_MAX_OFFSET });
    expect(cluster.received('broker-a', RequestCode.HEART_BEAT)).toHaveLength(0);
    // A consumer of T: broker-b routes only U, so its connection gets none; neither does the name server's.
    await membership.heartbeat([registration(['T'])]);
    await session.routes.route('U');
    await session.request(b.address, { code: RequestCode.GET_MAX_OFFSET });
    reopened = nextOpen(session, b.address);
    b.last.socket.destroy();
    await reopened;
    await session.request(b.address, { code: RequestCode.GET_MAX_OFFSET });
    reopened = nextOpen(session, cluster.namesrv.address);
    cluster.namesrv.last.socket.destroy();
    await reopened;
    await session.routes.fetch('T');
    expect(cluster.received('broker-b', RequestCode.HEART_BEAT)).toHaveLength(0);
    expect(cluster.namesrv.requests.filter((r) => r.code === RequestCode.HEART_BEAT)).toHaveLength(0);
    expect(cluster.received('broker-a', RequestCode.HEART_BEAT)).toHaveLength(1);
    membership.close();
  });

  it('a broker that leaves every route and comes back is greeted on its new connection, and that heartbeat is the only one', async () => {
    cluster = await FakeCluster.start(['broker-a', 'broker-b']);
    const both = [
      { name: 'broker-a', queues: 1 },
      { name: 'broker-b', queues: 1 },
    ];
    cluster.routes.set('T', both);
    const session = cluster.session({ routeRefreshMs: 3_600_000 });
    const membership = new RocketMqGroupMembership(session);
    const b = cluster.broker('broker-b');
    await membership.heartbeat([], ['pg']);
    await session.routes.publishQueues('T');
    await waitFor(() => b.peers.length === 1 && beatsOn(b.last).length === 1);
    // broker-b leaves the route: its connection is closed for good (RocketMQ's cleanOfflineBroker).
    cluster.routes.set('T', [{ name: 'broker-a', queues: 1 }]);
    await session.routes.fetch('T');
    await waitFor(() => !session.remoting.addresses.includes(b.address));
    // Back: the greeting opens the new connection, and the open adds no heartbeat of its own.
    cluster.routes.set('T', both);
    const reopened = nextOpen(session, b.address);
    await session.routes.fetch('T');
    await reopened;
    await waitFor(() => b.peers.length === 2 && beatsOn(b.last).length === 1);
    await session.request(b.address, { code: RequestCode.GET_MAX_OFFSET });
    expect(beatsOn(b.last)).toHaveLength(1);
    membership.close();
  });
});
