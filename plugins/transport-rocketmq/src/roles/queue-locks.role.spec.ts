import { afterEach, describe, expect, it } from 'vitest';
import { RequestCode } from '../protocol/remoting-codes';
import { FakeCluster } from '../transport/fake-cluster.fixture';
import { RocketMqQueueLocks } from './queue-locks.role';

let cluster: FakeCluster;
afterEach(async () => cluster?.stop());

const q = (brokerName: string, queueId: number) => ({ topic: 'T', brokerName, queueId });

describe('RocketMqQueueLocks', () => {
  it('locks per broker master in one LOCK_BATCH_MQ each and returns what the brokers granted', async () => {
    cluster = await FakeCluster.start();
    cluster.routes.set('T', [
      { name: 'broker-a', queues: 2 },
      { name: 'broker-b', queues: 2 },
    ]);
    // broker-a grants only queue 1; broker-b grants everything asked.
    cluster.onBroker = (name, request, peer) => {
      const body = JSON.parse(request.body.toString()) as { mqSet: unknown[] };
      const granted =
        name === 'broker-a' ? body.mqSet.filter((m) => (m as { queueId: number }).queueId === 1) : body.mqSet;
      peer.reply(request, { body: Buffer.from(JSON.stringify({ lockOKMQSet: granted })) });
    };
    const locks = new RocketMqQueueLocks(cluster.session({}, '10.0.0.1@app'));
    const granted = await locks.lock('g', [q('broker-a', 0), q('broker-a', 1), q('broker-b', 0)]);
    expect(granted).toEqual(expect.arrayContaining([q('broker-a', 1), q('broker-b', 0)]));
    expect(granted).toHaveLength(2);
    const [request] = cluster.received('broker-a', RequestCode.LOCK_BATCH_MQ);
    expect(JSON.parse(request!.body.toString())).toEqual({
      clientId: '10.0.0.1@app',
      consumerGroup: 'g',
      mqSet: [
        { brokerName: 'broker-a', queueId: 0, topic: 'T' },
        { brokerName: 'broker-a', queueId: 1, topic: 'T' },
      ],
      onlyThisBroker: false,
    });
    // The broker is named beside the body too, for rocketmq-proxy's remoting endpoint.
    expect(request!.extFields).toEqual({ bname: 'broker-a' });
    expect(locks.lockedSince('g', q('broker-a', 1))).toBeGreaterThan(0);
    expect(locks.lockedSince('g', q('broker-a', 0))).toBeUndefined();
  });

  it('a failing broker grants nothing; only every broker failing rejects', async () => {
    cluster = await FakeCluster.start();
    cluster.routes.set('T', [
      { name: 'broker-a', queues: 1 },
      { name: 'broker-b', queues: 1 },
    ]);
    cluster.onBroker = (name, request, peer) =>
      name === 'broker-a'
        ? peer.reply(request, { code: 1 })
        : peer.reply(request, {
            body: Buffer.from(JSON.stringify({ lockOKMQSet: [{ topic: 'T', brokerName: 'broker-b', queueId: 0 }] })),
          });
    const locks = new RocketMqQueueLocks(cluster.session());
    expect(await locks.lock('g', [q('broker-a', 0), q('broker-b', 0)])).toEqual([q('broker-b', 0)]);
    await expect(locks.lock('g', [q('broker-a', 0)])).rejects.toMatchObject({ responseCode: 1 });
  });

  it('unlocks per broker, waiting for each answer, and forgets the lock', async () => {
    cluster = await FakeCluster.start();
    cluster.routes.set('T', [
      { name: 'broker-a', queues: 1 },
      { name: 'broker-b', queues: 1 },
    ]);
    cluster.onBroker = (_n, request, peer) =>
      peer.reply(
        request,
        request.code === RequestCode.LOCK_BATCH_MQ
          ? { body: Buffer.from(JSON.stringify({ lockOKMQSet: JSON.parse(request.body.toString()).mqSet })) }
          : {},
      );
    const locks = new RocketMqQueueLocks(cluster.session());
    await locks.lock('g', [q('broker-a', 0), q('broker-b', 0)]);
    await locks.unlock('g', [q('broker-a', 0)]);
    await locks.unlock('g', [q('broker-b', 0)]);
    for (const broker of ['broker-a', 'broker-b']) {
      expect(cluster.received(broker, RequestCode.UNLOCK_BATCH_MQ)).toHaveLength(1);
      expect(cluster.received(broker, RequestCode.UNLOCK_BATCH_MQ)[0]!.flag & 2).toBe(0);
    }
    expect(locks.lockedSince('g', q('broker-a', 0))).toBeUndefined();
  });
});
