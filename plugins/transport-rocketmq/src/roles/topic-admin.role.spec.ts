import { ConfigurationError, TimeoutError } from '@mqkit/core';
import { afterEach, describe, expect, it } from 'vitest';
import { RequestCode } from '../protocol/remoting-codes';
import { FakeCluster } from '../transport/fake-cluster.fixture';
import { RocketMqOffsetAdmin } from './offset-admin.role';
import { RocketMqTopicAdmin } from './topic-admin.role';

let cluster: FakeCluster;
afterEach(async () => cluster?.stop());

describe('RocketMqTopicAdmin', () => {
  it('creates the topic on every master, waits until the name server routes every queue, then announces it', async () => {
    cluster = await FakeCluster.start();
    const created: string[] = [];
    cluster.onBroker = (name, request, peer) => {
      created.push(name);
      peer.reply(request);
      // Brokers register topics asynchronously: the route shows up (with all queues) a little later.
      if (created.length === 2)
        setTimeout(
          () =>
            cluster.routes.set('T', [
              { name: 'broker-a', queues: 3 },
              { name: 'broker-b', queues: 3 },
            ]),
          150,
        );
    };
    const session = cluster.session();
    const changes: string[] = [];
    session.routes.changes$.subscribe((t) => changes.push(t));
    expect(await session.routes.subscribeQueues('T')).toEqual([]);
    await new RocketMqTopicAdmin(session).createTopic({ topic: 'T', queues: 3 });
    expect(created.sort()).toEqual(['broker-a', 'broker-b']);
    expect(cluster.received('broker-a', RequestCode.UPDATE_AND_CREATE_TOPIC)[0]!.extFields).toEqual({
      topic: 'T',
      defaultTopic: 'TBW102',
      readQueueNums: '3',
      writeQueueNums: '3',
      perm: '6',
      topicFilterType: 'SINGLE_TAG',
      topicSysFlag: '0',
      order: 'false',
    });
    expect(await session.routes.subscribeQueues('T')).toHaveLength(6);
    expect(changes).toEqual(['T']);
  });

  it('creates on the named brokers only, and refuses unknown brokers and bad names before sending anything', async () => {
    cluster = await FakeCluster.start();
    cluster.onBroker = (_name, request, peer) => {
      cluster.routes.set('T', [{ name: 'broker-b', queues: 1 }]);
      peer.reply(request);
    };
    const admin = new RocketMqTopicAdmin(cluster.session());
    await admin.createTopic({ topic: 'T', queues: 1, brokers: ['broker-b'] });
    expect(cluster.received('broker-a', RequestCode.UPDATE_AND_CREATE_TOPIC)).toHaveLength(0);
    await expect(admin.createTopic({ topic: 'T', queues: 1, brokers: ['broker-z'] })).rejects.toMatchObject({
      name: 'ConfigurationError',
      option: 'brokers',
    });
    for (const bad of [
      { topic: 'a b', queues: 1 },
      { topic: 'T', queues: 0 },
      { topic: 'x'.repeat(128), queues: 1 },
    ]) {
      await expect(admin.createTopic(bad)).rejects.toBeInstanceOf(ConfigurationError);
    }
    expect(cluster.received('broker-b', RequestCode.UPDATE_AND_CREATE_TOPIC)).toHaveLength(1);
  });

  it('a broker refusal is a BrokerError; a route that never shows every queue is a TimeoutError', async () => {
    cluster = await FakeCluster.start(['broker-a']);
    cluster.onBroker = (_name, request, peer) => peer.reply(request, { code: 16, remark: 'no permission' });
    await expect(
      new RocketMqTopicAdmin(cluster.session()).createTopic({ topic: 'T', queues: 1 }),
    ).rejects.toMatchObject({ name: 'BrokerError', responseCode: 16 });
    cluster.onBroker = (_name, request, peer) => peer.reply(request);
    cluster.routes.set('T', [{ name: 'broker-a', queues: 1 }]);
    await expect(
      new RocketMqTopicAdmin(cluster.session({ createTopicTimeoutMs: 300 })).createTopic({ topic: 'T', queues: 2 }),
    ).rejects.toBeInstanceOf(TimeoutError);
  });
});

describe('RocketMqOffsetAdmin', () => {
  it('asks every master of the topic to reset the group to a time and collects the offsets they set', async () => {
    cluster = await FakeCluster.start();
    cluster.routes.set('T', [
      { name: 'broker-a', queues: 1 },
      { name: 'broker-b', queues: 1 },
    ]);
    cluster.onBroker = (name, request, peer) =>
      peer.reply(request, {
        body: Buffer.from(
          `{"offsetTable":{{"brokerName":"${name}","queueId":0,"topic":"T"}:${name === 'broker-a' ? 3 : 4}}}`,
        ),
      });
    const offsets = await new RocketMqOffsetAdmin(cluster.session()).resetAll('g', 'T', 42);
    expect(offsets).toEqual([
      { mq: { topic: 'T', brokerName: 'broker-a', queueId: 0 }, offset: 3 },
      { mq: { topic: 'T', brokerName: 'broker-b', queueId: 0 }, offset: 4 },
    ]);
    expect(cluster.received('broker-b', RequestCode.INVOKE_BROKER_TO_RESET_OFFSET)[0]!.extFields).toEqual({
      topic: 'T',
      group: 'g',
      timestamp: '42',
      isForce: 'true',
    });
    await expect(
      new RocketMqOffsetAdmin(cluster.session()).resetOffsetByTimestamp('g', 'NONE', 1),
    ).rejects.toMatchObject({ name: 'BrokerNotFoundError' });
  });
});
