import { EventBus, FAST_PROFILE } from '@mqkit/core';
import { RequestCode } from '../protocol/remoting-codes';
import type { RemotingCommand } from '../protocol/remoting-command';
import { FakeRemotingServer, type FakePeer } from '../remoting/fake-remoting-server.fixture';
import { RocketMqSession } from './rocketmq-session';
import { resolveTransportOptions, type RocketMqTransportOptions } from './rocketmq-transport.options';

/** One broker group of a fake route: its queues of the topic and its members by broker id. */
export interface FakeBrokerRoute {
  readonly name: string;
  readonly queues: number;
  readonly perm?: number;
  /** Broker id → fake server; default { 0: the broker's master }. */
  readonly members?: Readonly<Record<number, FakeRemotingServer>>;
}

/**
 * A name server and brokers made of FakeRemotingServers, for unit specs of the roles: the name server answers
 * GET_ROUTEINFO_BY_TOPIC from `routes` (TOPIC_NOT_EXIST for others), GET_ALL_TOPIC_LIST_FROM_NAMESERVER with the
 * routed topics and GET_BROKER_CLUSTER_INFO with plain fastjson (bare numeric keys); each broker answers with `onBroker` (default: SUCCESS, empty).
 */
export class FakeCluster {
  readonly routes = new Map<string, FakeBrokerRoute[]>();
  readonly brokers = new Map<string, FakeRemotingServer>();
  onBroker: (name: string, request: RemotingCommand, peer: FakePeer) => void = (_name, request, peer) =>
    peer.reply(request);
  private readonly sessions: RocketMqSession[] = [];

  private constructor(readonly namesrv: FakeRemotingServer) {}

  static async start(brokerNames: readonly string[] = ['broker-a', 'broker-b']): Promise<FakeCluster> {
    const cluster = new FakeCluster(await new FakeRemotingServer().start());
    cluster.namesrv.onRequest = (request, peer) => cluster.answerNameServer(request, peer);
    for (const name of brokerNames) {
      const server = await new FakeRemotingServer().start();
      server.onRequest = (request, peer) => cluster.onBroker(name, request, peer);
      cluster.brokers.set(name, server);
    }
    return cluster;
  }

  broker(name: string): FakeRemotingServer {
    const server = this.brokers.get(name);
    if (!server) throw new Error(`no fake broker ${name}`);
    return server;
  }

  /** A session on this cluster (fast profile), closed by {@link stop}. */
  session(options: Partial<RocketMqTransportOptions> = {}, clientId = '127.0.0.1@test'): RocketMqSession {
    const session = new RocketMqSession(
      resolveTransportOptions({ nameServer: this.namesrv.address, ...options }, FAST_PROFILE),
      clientId,
      new EventBus(),
    );
    this.sessions.push(session);
    return session;
  }

  /** Requests of one code a broker received. */
  received(broker: string, code: number): RemotingCommand[] {
    return this.broker(broker).requests.filter((r) => r.code === code);
  }

  async stop(): Promise<void> {
    await Promise.all(this.sessions.map((s) => s.close()));
    await Promise.all([this.namesrv, ...this.brokers.values()].map((s) => s.stop()));
  }

  private answerNameServer(request: RemotingCommand, peer: FakePeer): void {
    if (request.code === RequestCode.GET_ROUTEINFO_BY_TOPIC) {
      const route = this.routes.get(request.extFields.topic ?? '');
      if (!route) {
        peer.reply(request, { code: 17, remark: 'No topic route info in name server for the topic' });
        return;
      }
      const body = {
        brokerDatas: route.map((b) => ({
          brokerAddrs: Object.fromEntries(
            Object.entries(b.members ?? { 0: this.broker(b.name) }).map(([id, s]) => [id, s.address]),
          ),
          brokerName: b.name,
          cluster: 'DefaultCluster',
        })),
        queueDatas: route.map((b) => ({
          brokerName: b.name,
          perm: b.perm ?? 6,
          readQueueNums: b.queues,
          topicSysFlag: 0,
          writeQueueNums: b.queues,
        })),
      };
      peer.reply(request, { body: Buffer.from(JSON.stringify(body)) });
      return;
    }
    if (request.code === RequestCode.GET_BROKER_CLUSTER_INFO) {
      // Plain fastjson: broker ids as bare numbers.
      const table = [...this.brokers].map(
        ([name, s]) => `"${name}":{"brokerAddrs":{0:"${s.address}"},"brokerName":"${name}","cluster":"DefaultCluster"}`,
      );
      peer.reply(request, {
        body: Buffer.from(
          `{"brokerAddrTable":{${table.join(',')}},"clusterAddrTable":{"DefaultCluster":[${[...this.brokers.keys()].map((n) => `"${n}"`).join(',')}]}}`,
        ),
      });
      return;
    }
    if (request.code === RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER) {
      peer.reply(request, { body: Buffer.from(JSON.stringify({ topicList: [...this.routes.keys()] })) });
      return;
    }
    peer.reply(request, { code: 3 });
  }
}
