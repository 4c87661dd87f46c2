import { createConsumerApp, createPullConsumer, type CompressionType, type Message } from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import type { RocketMqCluster } from '@mqkit/transport-rocketmq/testing';
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

const TYPES: readonly CompressionType[] = ['ZLIB', 'LZ4', 'ZSTD'];
/** sysFlag bits 8-10 as RocketMQ's MessageSysFlag numbers the types. */
const TYPE_BITS: Record<CompressionType, number> = { LZ4: 1, ZSTD: 2, ZLIB: 3 };

/**
 * Bodies over the 4 KiB threshold, so both producers compress them: JSON text, incompressible bytes (the
 * compressed body is larger, and still used), and 1 MiB of one byte; and one under it, sent as is.
 */
function bodies(): Buffer[] {
  const rows = Array.from({ length: 400 }, (_, i) => JSON.stringify({ order: i, sku: `sku-${i % 9}`, note: 'ü✓' }));
  const noise = Buffer.alloc(8 * 1024);
  let x = 7;
  for (let i = 0; i < noise.length; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    noise[i] = x >>> 24;
  }
  return [Buffer.from(rows.join('\n')), noise, Buffer.alloc(1024 * 1024, 0x61), Buffer.from('small')];
}

const typeOf = (sysFlag: number) => (sysFlag >> 8) & 0x7;

interface JavaSeen {
  readonly msgId: string;
  readonly body: string;
  readonly sysFlag: number;
}

describe(`compressed bodies between mqkit and RocketMQ's Java client, every type (Node ${process.version})`, () => {
  for (const type of TYPES) {
    it(`${type}: DefaultMQProducer's bodies arrive intact at mqkit's push and pull consumers`, async () => {
      const topic = await freshTopic(cluster, `fromJava${type}`, 2);
      const sent = bodies();
      const input = sent.map((b) => [b.toString('base64'), '', '', ''].join('\t')).join('\n');
      const run = await runJavaProgram('InteropProducer', [cluster.namesrvAddr, topic, '', type], {
        input: `${input}\n`,
      });
      expect(run.code, run.stderr + run.stdout).toBe(0);
      const msgIds = run.lines<{ msgId: string }>('SENT').map((s) => s.msgId);
      expect(msgIds).toHaveLength(sent.length);

      const pushed: Message[] = [];
      const app = await createConsumerApp({
        transport: transportFor(cluster),
        consumers: [
          consumerClass(
            { group: uniqueName(`push${type}`), topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
            (m: Message) => void pushed.push(m),
          ),
        ],
        profile: 'fast',
        instanceName: uniqueName('compressPush'),
      });
      await app.start();
      const pull = await createPullConsumer({
        transport: transportFor(cluster),
        group: uniqueName(`pull${type}`),
        profile: 'fast',
        instanceName: uniqueName('compressPull'),
        consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      });
      const pulled: Message[] = [];
      try {
        await pull.subscribe(topic);
        await waitFor(
          async () => {
            pulled.push(...(await pull.poll({ timeoutMs: 500 })));
            return pulled.length >= sent.length && pushed.length >= sent.length;
          },
          { timeoutMs: 60_000, message: () => `push ${pushed.length}, pull ${pulled.length} of ${sent.length}` },
        );
      } finally {
        await pull.close();
        await app.stop({ timeoutMs: 5_000 });
      }
      for (const [path, received] of [
        ['push', pushed],
        ['pull', pulled],
      ] as const) {
        expect(received, path).toHaveLength(sent.length);
        sent.forEach((body, i) => {
          const m = received.find((r) => r.msgId === msgIds[i]);
          expect(m, `${path}: message ${i}`).toBeDefined();
          expect(m!.body.equals(body), `${path}: body of message ${i}`).toBe(true);
          // Java's type bits stay (what the producer used); COMPRESSED is cleared, as Java's decoder clears it.
          if (body.length >= 4096)
            expect(typeOf(m!.record.sysFlag), `${path}: type bits of ${i}`).toBe(TYPE_BITS[type]);
          expect(m!.record.sysFlag & 0x1, `${path}: COMPRESSED of ${i}`).toBe(0);
        });
      }
    }, 180_000);

    it(`${type}: mqkit's compressed bodies arrive intact at DefaultMQPushConsumer`, async () => {
      const topic = await freshTopic(cluster, `toJava${type}`, 2);
      const sent = bodies();
      const producer = await clusterProducer(cluster, { compressType: type });
      const msgIds: string[] = [];
      try {
        for (const body of sent) msgIds.push((await producer.send({ topic, body })).msgId);
      } finally {
        await producer.stop();
      }
      const run = await runJavaProgram('InteropConsumer', [
        cluster.namesrvAddr,
        topic,
        uniqueName(`java${type}`),
        String(sent.length),
        '90',
      ]);
      expect(run.code, run.stderr).toBe(0);
      const seen = run.lines<JavaSeen>('MSG');
      expect(seen).toHaveLength(sent.length);
      sent.forEach((body, i) => {
        const java = seen.find((m) => m.msgId === msgIds[i]);
        expect(java, `message ${i}`).toBeDefined();
        expect(Buffer.from(java!.body, 'base64').equals(body), `body of message ${i}`).toBe(true);
        // The stored flag says which codec Java used to inflate it: the one mqkit was told to use.
        expect(typeOf(java!.sysFlag), `type bits of ${i}`).toBe(body.length >= 4096 ? TYPE_BITS[type] : 0);
      });
    }, 180_000);
  }
});
