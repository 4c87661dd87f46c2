import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { createProducer, type Message } from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import type { RocketMqCluster } from '@mqkit/transport-rocketmq/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerClass } from '../support/fixtures';
import { RocketMqHarness, useRocketMqHarness } from '../support/rocketmq-fixtures';

let cluster: RocketMqCluster;
let harness: RocketMqHarness;
useRocketMqHarness((c, h) => {
  cluster = c;
  harness = h;
});

// Every TCP client socket this process opens (Node publishes each on `net.client.socket`): the test drops the
// ones to a broker as a network blip would, with the broker staying up and in its routes.
const sockets: Socket[] = [];
const track = (message: unknown): void => void sockets.push((message as { socket: Socket }).socket);
beforeAll(() => subscribe('net.client.socket', track));
afterAll(() => void unsubscribe('net.client.socket', track));

const portOf = (address: string): number => Number(address.slice(address.lastIndexOf(':') + 1));

describe('a broker connection that drops and comes back on a real cluster (checks every 1 s after 2 s, at most 3)', () => {
  it("a default-profile producer's UNKNOW transaction on the broker is settled by its check-back: the new connection is heartbeated at once, not 30 s later", async () => {
    const topic = uniqueName('txblip');
    await harness.createTopic(topic, 1, ['broker-a']);
    const brokerA = cluster.brokers.find((b) => b.brokerName === 'broker-a');
    if (!brokerA) throw new Error('the test cluster has no broker-a');
    const delivered: string[] = [];
    await harness.app([
      consumerClass(
        { group: uniqueName('g'), topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
        (m: Message) => void delivered.push(m.body.toString()),
      ),
    ]);
    const asked: string[] = [];
    // The default profile: its interval heartbeat comes 30 s after the start, long after the broker has checked a
    // half message its three times and set it aside. Only a heartbeat when the connection opens again registers
    // the group on the broker's new channel in time.
    const producer = await createProducer({
      transport: harness.transport(),
      group: uniqueName('txp'),
      instanceName: uniqueName('blip'),
      sendMsgTimeout: 10_000,
      transactionListener: {
        checkLocalTransaction: (m) => {
          asked.push(m.body.toString());
          return 'COMMIT_MESSAGE';
        },
      },
    });
    const connection: string[] = [];
    producer.events.on('rocketmq.connection', (e) => {
      if ((e.type === 'connected' || e.type === 'disconnected') && portOf(e.address) === portOf(brokerA.addr))
        connection.push(e.type);
    });
    try {
      // The first send learns the route and opens the connection to broker-a (its heartbeat registers the group).
      await producer.sendInTransaction({ topic, body: 'before' }, () => 'COMMIT_MESSAGE');
      await waitFor(() => delivered.includes('before'), { timeoutMs: 30_000 });
      expect(connection).toEqual(['connected']);
      // The blip: every connection of this process to broker-a closes. The broker drops the channels and the
      // groups registered on them; the producer reconnects by itself, and the route never changes.
      const dropped = sockets.filter((s) => !s.destroyed && s.remotePort === portOf(brokerA.addr));
      expect(dropped.length).toBeGreaterThan(0);
      for (const socket of dropped) socket.destroy();
      await waitFor(() => connection.join() === 'connected,disconnected,connected', {
        timeoutMs: 20_000,
        message: () => `connection events: ${connection.join()}`,
      });
      const { state } = await producer.sendInTransaction({ topic, body: 'after' }, () => 'UNKNOW');
      expect(state).toBe('UNKNOW');
      await waitFor(() => delivered.includes('after'), {
        timeoutMs: 25_000,
        message: () => `asked: ${asked.join(',')}; delivered: ${delivered.join(',')}`,
      });
      expect(asked).toContain('after');
      expect(delivered.filter((b) => b === 'after')).toHaveLength(1);
    } finally {
      await producer.stop();
    }
  }, 90_000);
});
