import type { ConsumeMode } from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import type { RocketMqCluster } from '@mqkit/transport-rocketmq/testing';
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerClass } from '../support/fixtures';
import { Tracer, expectCausedBySends, type SpanRecord } from '../tracing/span-records';
import { RocketMqHarness, testCluster } from '../support/rocketmq-fixtures';

let cluster: RocketMqCluster;
let harness: RocketMqHarness;
let consumerSide: Tracer;
beforeAll(async () => {
  cluster = await testCluster();
  harness = new RocketMqHarness(cluster);
  consumerSide = new Tracer();
});
afterAll(async () => {
  await harness?.close();
  await consumerSide?.close();
});

type Report = { type: 'spans'; clientId: string; spans: SpanRecord[] } | { type: 'error'; message: string };

/** Runs traced-producer.fixture.cjs: COUNT sends to each topic from another process, with its own tracer. */
async function produceInChild(
  topics: readonly string[],
  ordered: string,
  count: number,
): Promise<{ clientId: string; spans: SpanRecord[] }> {
  const child = fork(join(__dirname, 'traced-producer.fixture.cjs'), [], {
    env: {
      ...process.env,
      NAMESRV: cluster.namesrvAddr,
      TOPICS: topics.join(','),
      ORDERED: ordered,
      COUNT: String(count),
      GROUP: uniqueName('tracedp'),
      INSTANCE: uniqueName('traced'),
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<unknown>((resolve) => child.on('exit', resolve));
  const report = await new Promise<Report>((resolve) => child.once('message', resolve as (m: unknown) => void));
  child.disconnect();
  await exited;
  if (report.type === 'error') throw new Error(`the traced producer failed: ${report.message}`);
  return report;
}

/** The process spans of `topic` account for `count` messages (a batch span for several). */
function processed(topic: string, count: number): SpanRecord[] | undefined {
  const spans = consumerSide.records(`process ${topic}`);
  return spans.flatMap((s) => s.links).length >= count ? spans : undefined;
}

describe('tracing across two processes on a real cluster', () => {
  it('CONCURRENTLY, ORDERLY and batch: every process span in this process is caused by its send span in the producer process', async () => {
    const count = 12;
    const [concurrent, orderly, batched] = [uniqueName('trc'), uniqueName('tro'), uniqueName('trb')];
    await harness.createTopic(concurrent, 2);
    await harness.createTopic(orderly, 2);
    await harness.createTopic(batched, 1);
    const groups: Record<string, string> = {
      [concurrent]: uniqueName('gc'),
      [orderly]: uniqueName('go'),
      [batched]: uniqueName('gb'),
    };
    const consumer = (topic: string, consumeMode: ConsumeMode) =>
      consumerClass(
        { group: groups[topic]!, topic, consumeMode, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' },
        () => undefined,
      );
    // Live consumers for the two modes; the batch group starts once everything is stored, so its calls get several.
    const app = await harness.app([consumer(concurrent, 'CONCURRENTLY'), consumer(orderly, 'ORDERLY')], {
      plugins: [consumerSide.plugin()],
    });
    const producer = await produceInChild([concurrent, orderly, batched], orderly, count);
    const batchApp = await harness.app(
      [
        consumerClass(
          {
            group: groups[batched]!,
            topic: batched,
            batch: true,
            consumeMessageBatchMaxSize: 4,
            consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
          },
          () => undefined,
        ),
      ],
      { plugins: [consumerSide.plugin()] },
    );
    const byTopic = await waitFor(
      () => {
        const spans = [concurrent, orderly, batched].map((t) => [t, processed(t, count)] as const);
        return spans.every(([, s]) => s !== undefined) ? new Map(spans.map(([t, s]) => [t, s!])) : undefined;
      },
      {
        timeoutMs: 90_000,
        intervalMs: 200,
        message: () =>
          consumerSide
            .records()
            .map((s) => s.name)
            .join(', '),
      },
    );
    for (const [topic, consumers] of byTopic) {
      const producers = producer.spans.filter((s) => s.name === `send ${topic}`);
      expect(producers).toHaveLength(count);
      for (const send of producers) {
        expect(send.kind).toBe('PRODUCER');
        expect(send.attributes).toMatchObject({
          'messaging.system': 'rocketmq',
          'messaging.destination.name': topic,
          'messaging.operation.type': 'send',
          'messaging.client.id': producer.clientId,
          'messaging.rocketmq.message.type': 'normal',
        });
      }
      const ids = expectCausedBySends(consumers, producers);
      expect(new Set(ids)).toEqual(new Set(producers.map((s) => s.attributes['messaging.message.id'])));
      const clientId = topic === batched ? batchApp.clientId : app.clientId;
      for (const span of consumers) {
        expect(span.attributes).toMatchObject({
          'messaging.destination.name': topic,
          'messaging.consumer.group.name': groups[topic],
          'messaging.client.id': clientId,
          'messaging.rocketmq.consumption_model': 'clustering',
          'messaging.operation.type': 'process',
        });
        if (span.links.length === 1)
          expect(span.attributes['messaging.rocketmq.message.keys']).toEqual([expect.stringMatching(/^k\d+$/)]);
      }
    }
    expect(byTopic.get(batched)!.some((s) => s.links.length > 1)).toBe(true);
  }, 180_000);
});
