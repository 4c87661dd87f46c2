import { Tokens, createConsumerApp, createProducer } from '@mqkit/core';
import { waitFor } from '@mqkit/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { RequestCode } from '../protocol/remoting-codes';
import { FakeCluster } from './fake-cluster.fixture';
import { rocketmqTransport } from './rocketmq.transport';

let cluster: FakeCluster;
afterEach(async () => cluster?.stop());

describe('rocketmqTransport', () => {
  it("registers every transport role in the app's container and closes its connections when the app stops", async () => {
    cluster = await FakeCluster.start(['broker-a']);
    cluster.routes.set('T', [{ name: 'broker-a', queues: 1 }]);
    const app = await createConsumerApp({
      transport: rocketmqTransport({ nameServer: cluster.namesrv.address }),
      consumers: [],
      profile: 'fast',
    });
    await app.start();
    const roles = [
      'RouteResolver',
      'GroupMembership',
      'MessagePuller',
      'BrokerOffsets',
      'RetryChannel',
      'QueueLocks',
      'MessageSender',
      'TopicAdmin',
      'OffsetAdmin',
    ] as const;
    for (const role of roles) expect(app.container.isRegistered(Tokens[role] as symbol, true), role).toBe(true);
    expect(await app.transport.routes.subscribeQueues('T')).toHaveLength(1);
    const socket = cluster.namesrv.last.socket;
    await app.stop();
    await waitFor(() => socket.destroyed || socket.readableEnded);
  });

  it("serves a producer-only client: SEND_MESSAGE_V2 to the master of the chosen queue, with the client id's group", async () => {
    cluster = await FakeCluster.start(['broker-a']);
    cluster.routes.set('T', [{ name: 'broker-a', queues: 2 }]);
    cluster.onBroker = (_name, request, peer) =>
      peer.reply(request, { extFields: { msgId: 'OFF', queueId: request.extFields.e!, queueOffset: '0' } });
    const producer = await createProducer({
      transport: rocketmqTransport({ nameServer: cluster.namesrv.address }),
      group: 'pg',
      profile: 'fast',
    });
    try {
      const result = await producer.send({ topic: 'T', payload: { a: 1 }, tags: 'A' });
      expect(result).toMatchObject({
        status: 'SEND_OK',
        offsetMsgId: 'OFF',
        messageQueue: { topic: 'T', brokerName: 'broker-a' },
      });
      const [sent] = cluster.received('broker-a', RequestCode.SEND_MESSAGE_V2);
      expect(sent!.extFields).toMatchObject({ a: 'pg', b: 'T' });
      expect(JSON.parse(sent!.body.toString())).toEqual({ a: 1 });
    } finally {
      await producer.stop();
    }
  });
});
