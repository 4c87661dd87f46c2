import {
  BrokerError,
  RequestTimeoutError,
  createAdmin,
  createProducer,
  stringCodec,
  type Admin,
  type Message,
} from '@mqkit/core';
import { Deliveries, uniqueName, waitFor } from '@mqkit/core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { consumerClass } from '../support/fixtures';
import { COMPAT_ACL } from './compat-acl';
import { useCompat } from './compat-context';
import { compatTarget } from './compat-target';

const harness = useCompat();
const target = compatTarget();
const admins: Admin[] = [];
afterAll(async () => void (await Promise.all(admins.map((a) => a.close()))));

/**
 * A ready replier on a new topic of `queues` queues, answering `reply:<body>` and recording what it handled, and a
 * requester; `run` gets both, and the requester is stopped after it.
 */
async function withReplier(
  queues: number,
  run: (topic: string, requester: Awaited<ReturnType<typeof createProducer>>, handled: string[]) => Promise<void>,
): Promise<void> {
  const topic = uniqueName('cRr');
  await harness().createTopic(topic, queues);
  const handled: string[] = [];
  const replier = await harness().app([
    consumerClass({ group: uniqueName('gReplier'), topic, reply: true, codec: stringCodec }, (m: Message) => {
      handled.push(m.body.toString());
      return `reply:${m.body.toString()}`;
    }),
  ]);
  await replier.ready();
  const requester = await createProducer({
    transport: harness().transport(),
    group: uniqueName('pReq'),
    profile: 'fast',
    sendMsgTimeout: 10_000,
    codec: stringCodec,
  });
  try {
    await run(topic, requester, handled);
  } finally {
    await requester.stop();
  }
}

describe('Request-reply', () => {
  if (!target.viaProxy)
    it('a replier answers requests, each reply reaching its requester', () =>
      withReplier(2, async (topic, requester) => {
        const replies = await Promise.all(
          [0, 1, 2, 3].map((i) => requester.request({ topic, body: `q${i}` }, { timeoutMs: 30_000 })),
        );
        expect(replies.map((r) => r.payload)).toEqual(['reply:q0', 'reply:q1', 'reply:q2', 'reply:q3']);
      }));
  else
    it('not relayed: a reply through rocketmq-proxy never reaches its requester, which times out naming the request', () =>
      withReplier(1, async (topic, requester, handled) => {
        // The broker pushes a reply to the connection the request came from: the proxy's, which does not pass it on.
        const error = await requester.request({ topic, body: 'q' }, { timeoutMs: 5_000 }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(RequestTimeoutError);
        expect((error as Error).message).toContain(topic);
        await waitFor(() => handled.length > 0, { timeoutMs: 10_000, message: 'the replier handled the request' });
        expect(handled).toEqual(['q']);
      }));
});

describe('Admin reads', () => {
  if (!target.viaProxy)
    it('topics, topicStats, consumerProgress, consumerConnections and queryMessagesByKey read what the cluster holds', async () => {
      const topic = uniqueName('cAdmin');
      const group = uniqueName('gAdmin');
      await harness().createTopic(topic, 2);
      const seen = new Deliveries();
      await harness().app([
        consumerClass({ group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' }, (m: Message<{ seq: number }>) =>
          seen.record(m.payload.seq),
        ),
      ]);
      await harness().produce(topic, 20);
      await waitFor(() => seen.unique === 20, { timeoutMs: 30_000, message: () => `${seen.unique}/20` });
      const admin = await createAdmin({
        transport: harness().transport(),
        profile: 'fast',
        instanceName: uniqueName('a'),
      });
      admins.push(admin);
      expect(await admin.topics({ system: false })).toContain(topic);
      const stats = await admin.topicStats(topic);
      expect(stats.map((s) => s.maxOffset).reduce((a, b) => a + b, 0)).toBe(20);
      // Members commit on their persist interval: wait for the broker to hold every commit.
      await waitFor(
        async () => {
          const rows = (await admin.consumerProgress(group)).filter((r) => r.topic === topic);
          return rows.length === 2 && rows.every((r) => r.lag === 0 && r.brokerOffset > 0);
        },
        { timeoutMs: 30_000, message: 'consumerProgress shows every queue consumed' },
      );
      const connections = await admin.consumerConnections(group);
      expect(connections.connections).toHaveLength(1);
      expect(connections.subscriptions.map((s) => s.topic)).toContain(topic);
      // The broker indexes keys asynchronously: wait until the key is found.
      await waitFor(
        async () =>
          (await admin.queryMessagesByKey<{ seq: number }>(topic, 'k7', { begin: 0, end: Date.now() + 60_000 }))
            .map((m) => m.payload.seq)
            .join() === '7',
        { timeoutMs: 30_000, message: 'queryMessagesByKey finds k7' },
      );
    });
  else
    it('not served: the admin reads a proxy does not serve fail at once, naming the name server as the way', async () => {
      const topic = uniqueName('cAdmin');
      await harness().createTopic(topic, 1);
      const admin = await createAdmin({
        transport: harness().transport(),
        profile: 'fast',
        instanceName: uniqueName('a'),
      });
      admins.push(admin);
      const reads: Array<[string, () => Promise<unknown>]> = [
        ['topics', () => admin.topics()],
        ['topicStats', () => admin.topicStats(topic)],
        ['queryMessagesByKey', () => admin.queryMessagesByKey(topic, 'k', { begin: 0, end: Date.now() })],
      ];
      for (const [name, read] of reads) {
        const error = await read().catch((e: unknown) => e);
        expect(error, name).toBeInstanceOf(BrokerError);
        expect((error as BrokerError).responseCode, name).toBe(3);
        expect((error as Error).message, name).toMatch(/rocketmq-proxy endpoint serves no admin requests/);
      }
    });
});

describe('Access control', () => {
  it(`signed requests pass and wrongly signed ones are refused as no-permission (${target.release.acl === 'acl-1.0' ? 'ACL 1.0' : 'ACL 2.0'})`, async (context) => {
    context.task.meta.compat = target.release.acl === 'acl-1.0' ? 'ACL 1.0' : 'ACL 2.0';
    const topic = uniqueName('cAcl');
    await harness().createTopic(topic, 1);
    const signed = await createProducer({
      transport: harness().transport(),
      group: uniqueName('pAcl'),
      profile: 'fast',
    });
    try {
      expect((await signed.send({ topic, body: 'signed' })).status).toBe('SEND_OK');
    } finally {
      await signed.stop();
    }
    const wrong = await createProducer({
      transport: harness().transport({ credentials: { ...COMPAT_ACL, secretKey: 'not-the-secret' } }),
      group: uniqueName('pAclWrong'),
      profile: 'fast',
      retryTimesWhenSendFailed: 0,
    });
    try {
      const error = await wrong.send({ topic, body: 'wrong' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BrokerError);
      // 5.x answers NO_PERMISSION (16); 4.x SYSTEM_ERROR (1) with the AclException: both are the same kind.
      expect((error as BrokerError).kind).toBe('no-permission');
      if (target.release.acl === 'acl-1.0') {
        expect((error as BrokerError).message).toMatch(
          /AclException: Check signature failed for accessKey=mqkitCompat/,
        );
        expect((error as BrokerError).retriable).toBe(false);
      } else if (target.viaProxy) {
        // rocketmq-proxy checks the signature itself and answers SYSTEM_ERROR, as a 4.x broker does.
        expect((error as BrokerError).message).toMatch(/check signature failed/);
        expect((error as BrokerError).retriable).toBe(false);
      } else expect((error as BrokerError).responseCode).toBe(16);
    } finally {
      await wrong.stop();
    }
  });
});
