import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPortFree } from './free-port';
import { isProcessAlive } from './process-control';
import { sendProbeRequest } from './remoting-probe';
import type { RocketMqCluster } from './rocketmq-cluster';
import { startRocketMqCluster } from './start-rocketmq-cluster';
import { startRocketMqProxy, type RocketMqProxy } from './start-rocketmq-proxy';
import { createTopic, uniqueName } from './topic-admin';

const GET_ROUTEINFO_BY_TOPIC = 105;

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

  it('stops by pid, frees its ports, and the cluster stops after it', async () => {
    const proxyPid = proxy.pid!;
    const pids = cluster.pids();
    await proxy.stop();
    expect(isProcessAlive(proxyPid)).toBe(false);
    expect(proxy.pid).toBeUndefined();
    expect(cluster.pids()).not.toContain(proxyPid);
    expect(await isPortFree(Number(proxy.remotingAddr.split(':')[1]))).toBe(true);
    expect(await isPortFree(Number(proxy.grpcAddr.split(':')[1]))).toBe(true);
    const folder = cluster.baseDir;
    await cluster.stop();
    for (const pid of pids) expect(isProcessAlive(pid)).toBe(false);
    expect(existsSync(folder)).toBe(false);
  }, 60_000);
});
