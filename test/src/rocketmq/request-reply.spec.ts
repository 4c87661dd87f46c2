import {
  createProducer,
  MessageConst,
  RequestTimeoutError,
  replyTopicOf,
  stringCodec,
  type Codec,
  type ConsumerApp,
  type Message,
} from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import type { RocketMqCluster } from '@mqkit/transport-rocketmq/testing';
import { describe, expect, it } from 'vitest';
import { runJavaProgram } from '../producer-cluster/java-program';
import { consumerClass } from '../support/fixtures';
import { RocketMqHarness, useRocketMqHarness } from '../support/rocketmq-fixtures';

let cluster: RocketMqCluster;
let harness: RocketMqHarness;
useRocketMqHarness((c, h) => {
  cluster = c;
  harness = h;
});

/** A standalone requester; a generous send budget, as the test brokers share two cores with everything else. */
const requester = (codec?: Codec) =>
  createProducer({
    transport: harness.transport(),
    group: uniqueName('req'),
    profile: 'fast',
    sendMsgTimeout: 10_000,
    instanceName: uniqueName('requester'),
    codec,
  });

/**
 * Resolves once the replier app has taken every queue of the topic and knows where each starts. Its group is new
 * and consumes from the last offset: a request stored between the broker's "no offset" answer for a still empty
 * queue and the max-offset query comes before where the queue starts, and is never answered (it timed out CI twice).
 */
async function replierReady(app: ConsumerApp, topic: string, queues: number): Promise<void> {
  const owned = () => app.status().consumers[0]?.queues.filter((q) => q.mq.topic === topic).length ?? 0;
  await waitFor(() => app.status().ready && owned() === queues, {
    timeoutMs: 30_000,
    message: () => `replier owns ${owned()} of ${queues} queues of ${topic}`,
  });
}

describe('request-reply on a real cluster', () => {
  it('an mqkit replier answers an mqkit requester, with requests on both brokers, each reply pushed by the broker that stored its request', async () => {
    const topic = uniqueName('rr');
    await harness.createTopic(topic, 2);
    const seen: Message<{ seq: number }>[] = [];
    const replier = await harness.app(
      [
        consumerClass({ group: uniqueName('replier'), topic, reply: true }, (m: Message<{ seq: number }>) => {
          seen.push(m);
          return { seq: m.payload.seq, squared: m.payload.seq ** 2 };
        }),
      ],
      { instanceName: uniqueName('replierApp') },
    );
    await replierReady(replier, topic, 4);
    const client = await requester();
    try {
      const replies = await Promise.all(
        Array.from({ length: 24 }, (_, seq) =>
          client.request<{ seq: number }, { seq: number; squared: number }>(
            { topic, payload: { seq } },
            { timeoutMs: 30_000 },
          ),
        ),
      );
      expect(replies.map((r) => r.payload)).toEqual(
        Array.from({ length: 24 }, (_, seq) => ({ seq, squared: seq ** 2 })),
      );
      expect(new Set(seen.map((m) => m.brokerName))).toEqual(new Set(['broker-a', 'broker-b']));
      const storedOn = new Map(seen.map((m) => [m.properties[MessageConst.CORRELATION_ID], m.brokerName]));
      for (const reply of replies) {
        expect(reply.topic).toBe(replyTopicOf(seen[0]!.properties[MessageConst.CLUSTER]!));
        expect(reply.properties[MessageConst.MSG_TYPE]).toBe('reply');
        // The push came from the broker that stored the request (the reply names the broker it arrived from).
        expect(reply.brokerName).toBe(storedOn.get(reply.properties[MessageConst.CORRELATION_ID]));
      }
      for (const m of seen) {
        expect(m.properties[MessageConst.REPLY_TO_CLIENT]).toBe(client.clientId);
        expect(m.properties[MessageConst.TTL]).toBe('30000');
      }
    } finally {
      await client.stop();
    }
  }, 120_000);

  it('a request nobody answers in time rejects with RequestTimeoutError, and its late reply is dropped', async () => {
    const topic = uniqueName('rrSlow');
    await harness.createTopic(topic, 1);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const replier = await harness.app(
      [
        consumerClass({ group: uniqueName('slow'), topic, reply: true, codec: stringCodec }, async (m: Message) =>
          m.body.toString() === 'slow' ? gate.then(() => 'late') : 'quick',
        ),
      ],
      { instanceName: uniqueName('slowApp') },
    );
    await replierReady(replier, topic, 2); // one queue on each broker
    const client = await requester(stringCodec);
    const dropped: string[] = [];
    client.events.on('producer.reply-dropped', (e) => dropped.push(e.correlationId));
    try {
      const error = await client.request({ topic, body: 'slow' }, { timeoutMs: 1_500 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RequestTimeoutError);
      release();
      await waitFor(() => dropped.includes((error as RequestTimeoutError).correlationId), { timeoutMs: 20_000 });
      expect((await client.request({ topic, body: 'next' }, { timeoutMs: 30_000 })).payload).toBe('quick');
    } finally {
      await client.stop();
    }
  }, 120_000);

  it("RocketMQ's Java DefaultMQProducer.request gets mqkit's replies, on both brokers", async () => {
    const topic = uniqueName('rrFromJava');
    await harness.createTopic(topic, 2);
    const brokers = new Set<string>();
    const replier = await harness.app(
      [
        consumerClass({ group: uniqueName('mqkitReplier'), topic, reply: true, codec: stringCodec }, (m: Message) => {
          brokers.add(m.brokerName);
          return `mqkit-reply:${m.payload as string}`;
        }),
      ],
      { instanceName: uniqueName('replierApp') },
    );
    await replierReady(replier, topic, 4);
    const run = await runJavaProgram(
      'InteropRequester',
      [cluster.namesrvAddr, topic, uniqueName('javaReq'), '8', 'java', '30000', 'callback'],
      { timeoutMs: 150_000 },
    );
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const replies = run.lines<{ i: number; body: string; correlationId: string; topic: string }>('REPLY');
    expect(replies.map((r) => r.body)).toEqual(Array.from({ length: 8 }, (_, i) => `mqkit-reply:java-${i}`));
    expect(new Set(replies.map((r) => r.topic)).size).toBe(1);
    expect(brokers).toEqual(new Set(['broker-a', 'broker-b']));
  }, 180_000);

  it("mqkit's request gets the replies of RocketMQ's Java replier (MessageUtil.createReplyMessage and a send)", async () => {
    const topic = uniqueName('rrToJava');
    await harness.createTopic(topic, 2);
    // The Java replier reads the topic from its first offset, so requests sent while its JVM starts are answered too.
    const java = runJavaProgram('InteropReplier', [cluster.namesrvAddr, topic, uniqueName('javaReplier'), '6', '120'], {
      timeoutMs: 150_000,
    });
    const client = await requester(stringCodec);
    try {
      const replies = await Promise.all(
        Array.from({ length: 6 }, (_, i) => client.request({ topic, body: `mqkit-${i}` }, { timeoutMs: 90_000 })),
      );
      expect(replies.map((r) => r.payload)).toEqual(Array.from({ length: 6 }, (_, i) => `java-reply:mqkit-${i}`));
    } finally {
      await client.stop();
    }
    const run = await java;
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const replied = run.lines<{ requestBroker: string; status: string }>('REPLIED');
    expect(replied.every((r) => r.status === 'SEND_OK')).toBe(true);
    expect(new Set(replied.map((r) => r.requestBroker))).toEqual(new Set(['broker-a', 'broker-b']));
  }, 180_000);
});
