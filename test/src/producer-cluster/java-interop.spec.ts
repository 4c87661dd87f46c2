import { createConsumerApp, type Message } from '@mqkit/core';
import { RESERVED_PROPERTIES } from '@mqkit/core/internal';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import { createTopic, type RocketMqCluster } from '@mqkit/transport-rocketmq/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerClass } from '../support/fixtures';
import { runJavaProgram } from './java-program';
import { clusterProducer, freshTopic, producerCluster, transportFor } from './producer-cluster.fixture';

let cluster: RocketMqCluster;
let release: () => Promise<void>;
beforeAll(async () => {
  ({ cluster, release } = await producerCluster());
}, 300_000);
afterAll(async () => release?.(), 60_000);

/** One message as both sides describe it; `body` is compared byte for byte. */
interface Sample {
  readonly body: Buffer;
  readonly tags?: string;
  readonly keys?: readonly string[];
  readonly properties?: Readonly<Record<string, string>>;
}

const SAMPLES: readonly Sample[] = [
  {
    body: Buffer.from('héllo wörld ✓ 日本', 'utf8'),
    tags: 'TagA',
    keys: ['k1', 'k2'],
    properties: { color: 'blue', ünïcode: 'välue ✓', 'with space': 'a b=c,d' },
  },
  {
    body: Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
    tags: 'TagB',
    keys: ['single-key'],
    properties: { n: '42' },
  },
  // Over 4 KiB: both producers compress it (zlib), both consumers must hand back the original bytes.
  { body: Buffer.from('0123456789abcdef'.repeat(640), 'utf8'), tags: 'Big' },
  { body: Buffer.from(JSON.stringify({ order: 1, items: ['a', 'b'] }), 'utf8') },
];

/** What the Java consumer prints per message (InteropConsumer). */
interface JavaSeen {
  readonly msgId: string;
  readonly topic: string;
  readonly body: string;
  readonly tags: string | null;
  readonly keys: string | null;
  readonly properties: Record<string, string>;
}

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

describe("interop with RocketMQ's own Java client", () => {
  it('a message produced by mqkit is read by DefaultMQPushConsumer with the same body, tags, keys and properties', async () => {
    const topic = await freshTopic(cluster, 'interopToJava', 4);
    const producer = await clusterProducer(cluster);
    const msgIds: string[] = [];
    try {
      for (const s of SAMPLES)
        msgIds.push(
          (await producer.send({ topic, body: s.body, tags: s.tags, keys: s.keys, properties: s.properties })).msgId,
        );
    } finally {
      await producer.stop();
    }
    const run = await runJavaProgram('InteropConsumer', [
      cluster.namesrvAddr,
      topic,
      uniqueName('javaInterop'),
      String(SAMPLES.length),
      '90',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const seen = run.lines<JavaSeen>('MSG');
    expect(seen).toHaveLength(SAMPLES.length);
    SAMPLES.forEach((s, i) => {
      const java = seen.find((m) => m.msgId === msgIds[i]);
      expect(java, `message ${i} (${msgIds[i]})`).toBeDefined();
      expect(java!.topic).toBe(topic);
      expect(Buffer.from(java!.body, 'base64').equals(s.body), `body of message ${i}`).toBe(true);
      expect(java!.tags).toBe(s.tags ?? null);
      expect(java!.keys).toBe(s.keys ? s.keys.join(' ') : null);
      // Java lists as user properties everything outside its own system set: mqkit must add nothing else.
      expect(java!.properties).toEqual(s.properties ?? {});
    });
  }, 150_000);

  it('a message produced by DefaultMQProducer is read by mqkit with the same body, tags, keys and properties', async () => {
    const topic = await freshTopic(cluster, 'interopFromJava', 4);
    const received: Message[] = [];
    const Handler = consumerClass(
      { group: uniqueName('fromJava'), topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
      (m: Message<{ seq: number }>) => void received.push(m),
    );
    const app = await createConsumerApp({
      transport: transportFor(cluster),
      consumers: [Handler],
      profile: 'fast',
      instanceName: uniqueName('interop'),
    });
    await app.start();
    try {
      const input = SAMPLES.map((s) =>
        [
          s.body.toString('base64'),
          s.tags ? b64(s.tags) : '',
          s.keys ? b64(s.keys.join(' ')) : '',
          Object.entries(s.properties ?? {})
            .map(([k, v]) => `${b64(k)}:${b64(v)}`)
            .join(','),
        ].join('\t'),
      ).join('\n');
      const run = await runJavaProgram('InteropProducer', [cluster.namesrvAddr, topic], { input: `${input}\n` });
      expect(run.code, run.stderr + run.stdout).toBe(0);
      const sent = run.lines<{ msgId: string; status: string }>('SENT');
      expect(sent.map((s) => s.status)).toEqual(SAMPLES.map(() => 'SEND_OK'));
      await waitFor(() => received.length >= SAMPLES.length, {
        timeoutMs: 30_000,
        message: () => `mqkit received ${received.length} of ${SAMPLES.length}`,
      });
      expect(received).toHaveLength(SAMPLES.length);
      SAMPLES.forEach((s, i) => {
        const m = received.find((r) => r.msgId === sent[i]!.msgId);
        expect(m, `message ${i} (${sent[i]!.msgId})`).toBeDefined();
        expect(m!.topic).toBe(topic);
        expect(m!.body.equals(s.body), `body of message ${i}`).toBe(true);
        expect(m!.tags).toBe(s.tags);
        expect(m!.keys).toEqual(s.keys ?? []);
        const user = Object.fromEntries(Object.entries(m!.properties).filter(([k]) => !RESERVED_PROPERTIES.has(k)));
        expect(user).toEqual(s.properties ?? {});
      });
    } finally {
      await app.stop({ timeoutMs: 5_000 });
    }
  }, 150_000);
});

describe("namespaces, with RocketMQ's own Java client configured with the same namespace", () => {
  it('mqkit and DefaultMQPushConsumer / DefaultMQProducer read each other under plain topic names, on <namespace>%<topic>', async () => {
    const ns = uniqueName('tenant').replace(/[^a-zA-Z0-9_-]/g, '_');
    const topic = uniqueName('nsTopic');
    await createTopic(cluster, `${ns}%${topic}`, { queues: 4 });
    // mqkit → Java.
    const producer = await clusterProducer(cluster, { namespace: ns });
    const sent: string[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        const result = await producer.send({ topic, body: `to-java-${i}` });
        expect(result.messageQueue.topic).toBe(topic);
        sent.push(result.msgId);
      }
    } finally {
      await producer.stop();
    }
    const run = await runJavaProgram('InteropConsumer', [
      cluster.namesrvAddr,
      topic,
      uniqueName('javaNs'),
      '3',
      '90',
      ns,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const seen = run.lines<JavaSeen>('MSG');
    expect(seen.map((m) => m.msgId).sort()).toEqual([...sent].sort());
    expect(new Set(seen.map((m) => m.topic))).toEqual(new Set([topic]));
    // Java → mqkit.
    const received: Message[] = [];
    const group = uniqueName('fromJavaNs');
    const Handler = consumerClass(
      { group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
      (m: Message<{ seq: number }>) => void received.push(m),
    );
    const app = await createConsumerApp({
      transport: transportFor(cluster),
      consumers: [Handler],
      profile: 'fast',
      namespace: ns,
      instanceName: uniqueName('interopNs'),
    });
    await app.start();
    try {
      const input = ['from-java-0', 'from-java-1'].map((body) => [b64(body), '', '', ''].join('\t')).join('\n');
      const produced = await runJavaProgram('InteropProducer', [cluster.namesrvAddr, topic, ns], {
        input: `${input}\n`,
      });
      expect(produced.code, produced.stderr + produced.stdout).toBe(0);
      const javaIds = produced.lines<{ msgId: string }>('SENT').map((s) => s.msgId);
      // The group reads from the first offset: the three mqkit messages and the two Java ones.
      await waitFor(() => received.length >= 5, { timeoutMs: 30_000, message: () => `${received.length} of 5` });
      expect(
        received
          .filter((m) => javaIds.includes(m.msgId))
          .map((m) => m.body.toString())
          .sort(),
      ).toEqual(['from-java-0', 'from-java-1']);
      expect(new Set(received.map((m) => m.topic))).toEqual(new Set([topic]));
      expect(app.consumer(group).status().group).toBe(`${ns}%${group}`);
    } finally {
      await app.stop({ timeoutMs: 5_000 });
    }
  }, 180_000);
});

describe("transactions, with RocketMQ's own TransactionMQProducer and DefaultMQPushConsumer", () => {
  it("a Java transactional producer's commits reach mqkit (its rollbacks never), and mqkit's commits reach a Java consumer", async () => {
    // Java → mqkit.
    const fromJava = await freshTopic(cluster, 'txFromJava', 4);
    const received: string[] = [];
    const Handler = consumerClass(
      { group: uniqueName('txFromJava'), topic: fromJava, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
      (m: Message<{ seq: number }>) => void received.push(m.body.toString()),
    );
    const app = await createConsumerApp({
      transport: transportFor(cluster),
      consumers: [Handler],
      profile: 'fast',
      instanceName: uniqueName('txInterop'),
    });
    await app.start();
    try {
      const run = await runJavaProgram('InteropTxProducer', [
        cluster.namesrvAddr,
        fromJava,
        uniqueName('javaTx'),
        '4',
        'java',
      ]);
      expect(run.code, run.stderr + run.stdout).toBe(0);
      expect(run.lines<{ state: string; status: string }>('SENT').map((s) => s.state)).toEqual([
        'COMMIT_MESSAGE',
        'ROLLBACK_MESSAGE',
        'COMMIT_MESSAGE',
        'ROLLBACK_MESSAGE',
      ]);
      await waitFor(() => received.length >= 2, { timeoutMs: 30_000 });
    } finally {
      await app.stop({ timeoutMs: 5_000 });
    }
    expect(received.sort()).toEqual(['java-0', 'java-2']);
    // mqkit → Java.
    const toJava = await freshTopic(cluster, 'txToJava', 4);
    const producer = await clusterProducer(cluster, {
      transactionListener: { checkLocalTransaction: () => 'ROLLBACK_MESSAGE' },
    });
    const committed: string[] = [];
    try {
      for (let i = 0; i < 4; i++) {
        const { sendResult, state } = await producer.sendInTransaction({ topic: toJava, body: `mqkit-${i}` }, () =>
          i % 2 === 0 ? 'COMMIT_MESSAGE' : 'ROLLBACK_MESSAGE',
        );
        if (state === 'COMMIT_MESSAGE') committed.push(sendResult.msgId);
      }
    } finally {
      await producer.stop();
    }
    const run = await runJavaProgram('InteropConsumer', [
      cluster.namesrvAddr,
      toJava,
      uniqueName('javaTxReader'),
      '2',
      '90',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const seen = run.lines<JavaSeen>('MSG');
    expect(seen.map((m) => m.msgId).sort()).toEqual([...committed].sort());
    expect(seen.map((m) => Buffer.from(m.body, 'base64').toString()).sort()).toEqual(['mqkit-0', 'mqkit-2']);
  }, 240_000);
});
