import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProducer } from '@mqkit/core';
import { RequestCode, ResponseCode } from '../protocol/remoting-codes';
import { rocketmqTransport } from '../transport/rocketmq.transport';
import { isPortFree } from './free-port';
import { isProcessAlive } from './process-control';
import { sendProbeRequest, type ProbeRequest } from './remoting-probe';
import type { RocketMqCluster } from './rocketmq-cluster';
import { startRocketMqCluster } from './start-rocketmq-cluster';
import { startRocketMqProxy, type RocketMqProxy } from './start-rocketmq-proxy';
import { uniqueName } from '@mqkit/core/testing';
import { createTopic } from './topic-admin';

const GET_ROUTEINFO_BY_TOPIC = 105;
const NO_BNAME = "Request doesn't have field bname";

interface RouteBody {
  brokerDatas: { brokerName: string; cluster: string; brokerAddrs: Record<string, string> }[];
  queueDatas: { brokerName: string; readQueueNums: number; writeQueueNums: number }[];
}

// Needs Java 17 and Maven (the first run downloads rocketmq-proxy and its dependencies into ~/.m2 and the cache).
describe('startRocketMqProxy (real rocketmq-proxy, cluster mode)', () => {
  let cluster: RocketMqCluster;
  let proxy: RocketMqProxy;

  beforeAll(async () => {
    cluster = await startRocketMqCluster({ brokers: ['broker-a'] });
    proxy = await startRocketMqProxy(cluster);
  }, 400_000);

  afterAll(async () => {
    await proxy?.stop();
    await cluster?.stop();
  }, 60_000);

  it('listens on two loopback ports and is recorded with the cluster', () => {
    expect(proxy.remotingAddr).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(proxy.grpcAddr).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(proxy.grpcAddr).not.toBe(proxy.remotingAddr);
    expect(proxy.pid).toBeGreaterThan(0);
    expect(cluster.pids()).toContain(proxy.pid);
  });

  it('routes a created topic to itself: the route names the proxy, not the broker', async () => {
    const topic = uniqueName('proxy');
    await createTopic(cluster, topic, { queues: 2 });
    const response = await sendProbeRequest(
      proxy.remotingAddr,
      { code: GET_ROUTEINFO_BY_TOPIC, extFields: { topic, acceptStandardJsonOnly: 'true' } },
      cluster.probeOptions,
    );
    expect(response.code).toBe(0);
    const route = JSON.parse(response.body.toString('utf8')) as RouteBody;
    expect(route.brokerDatas).toEqual([
      expect.objectContaining({ brokerName: 'broker-a', brokerAddrs: { 0: proxy.remotingAddr } }),
    ]);
    expect(route.queueDatas).toEqual([
      expect.objectContaining({ brokerName: 'broker-a', readQueueNums: 2, writeQueueNums: 2 }),
    ]);
    expect(JSON.stringify(route)).not.toContain(cluster.brokers[0]!.addr);
  });

  it("takes a send from mqkit's transport: SEND_MESSAGE_V2 names its broker (`n`), the message is stored", async () => {
    const topic = uniqueName('proxysend');
    await createTopic(cluster, topic, { queues: 1 });
    const producer = await createProducer({
      transport: rocketmqTransport({ nameServer: proxy.remotingAddr }),
      group: uniqueName('pg'),
      profile: 'fast',
      sendMsgTimeout: 10_000,
    });
    try {
      const sent = await producer.send({ topic, payload: { through: 'proxy' }, tags: 'A' });
      expect(sent).toMatchObject({ status: 'SEND_OK', messageQueue: { topic, brokerName: 'broker-a', queueId: 0 } });
    } finally {
      await producer.stop();
    }
    const max = await sendProbeRequest(cluster.brokers[0]!.addr, {
      code: RequestCode.GET_MAX_OFFSET,
      extFields: { topic, queueId: '0' },
    });
    expect(max.extFields.offset).toBe('1');
  }, 60_000);

  it('refuses broker-bound requests without a `bname` ext field (so the transport names the broker on each), serves them with it', async () => {
    const topic = uniqueName('proxybname');
    await createTopic(cluster, topic, { queues: 1 });
    const group = uniqueName('g');
    const pull = {
      consumerGroup: group,
      topic,
      queueId: '0',
      queueOffset: '0',
      maxMsgNums: '32',
      sysFlag: '4',
      commitOffset: '0',
      suspendTimeoutMillis: '0',
      subscription: '*',
      subVersion: '0',
      expressionType: 'TAG',
    };
    const requests: ProbeRequest[] = [
      { code: RequestCode.QUERY_CONSUMER_OFFSET, extFields: { consumerGroup: group, topic, queueId: '0' } },
      { code: RequestCode.PULL_MESSAGE, extFields: pull },
      {
        code: RequestCode.UPDATE_CONSUMER_OFFSET,
        extFields: { consumerGroup: group, topic, queueId: '0', commitOffset: '0' },
      },
      { code: RequestCode.GET_MAX_OFFSET, extFields: { topic, queueId: '0' } },
    ];
    for (const request of requests) {
      const refused = await sendProbeRequest(proxy.remotingAddr, request, cluster.probeOptions);
      expect({ code: request.code, answer: refused.code, remark: refused.remark }).toEqual({
        code: request.code,
        answer: ResponseCode.VERSION_NOT_SUPPORTED,
        remark: NO_BNAME,
      });
    }
    const named = (request: ProbeRequest): ProbeRequest => ({
      ...request,
      extFields: { ...request.extFields, bname: 'broker-a' },
    });
    const [query, pulled] = [
      await sendProbeRequest(proxy.remotingAddr, named(requests[0]!), cluster.probeOptions),
      await sendProbeRequest(proxy.remotingAddr, named(requests[1]!), cluster.probeOptions),
    ];
    expect(query.code).toBe(ResponseCode.QUERY_NOT_FOUND); // the group has no offset yet: the broker answered
    expect(pulled.code).toBe(ResponseCode.PULL_NOT_FOUND); // an empty queue, from broker-a
  });

  it('stops by pid and frees its ports; cluster.stop() ends a proxy still running', async () => {
    const proxyPid = proxy.pid!;
    const pids = cluster.pids();
    await proxy.stop();
    expect(isProcessAlive(proxyPid)).toBe(false);
    expect(proxy.pid).toBeUndefined();
    expect(cluster.pids()).not.toContain(proxyPid);
    expect(await isPortFree(Number(proxy.remotingAddr.split(':')[1]))).toBe(true);
    expect(await isPortFree(Number(proxy.grpcAddr.split(':')[1]))).toBe(true);
    // A proxy left running is in the cluster's descriptor: cluster.stop() ends it with the brokers.
    const second = await startRocketMqProxy(cluster);
    expect(second.remotingAddr).not.toBe(proxy.remotingAddr);
    const folder = cluster.baseDir;
    await cluster.stop();
    for (const pid of [...pids, second.pid!]) expect(isProcessAlive(pid)).toBe(false);
    expect(second.pid).toBeUndefined();
    expect(existsSync(folder)).toBe(false);
  }, 180_000);
});
