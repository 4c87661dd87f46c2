import { RMQ_SYS_TRACE_TOPIC, createProducer, type Message, type MqkitEvents } from '@mqkit/core';
import { uniqueName, waitFor } from '@mqkit/core/testing';
import type { RocketMqCluster } from '@mqkit/transport-rocketmq/testing';
import { describe, expect, it } from 'vitest';
import { consumerClass } from '../support/fixtures';
import { RocketMqHarness, mqadmin, useRocketMqHarness } from '../support/rocketmq-fixtures';

let cluster: RocketMqCluster;
let harness: RocketMqHarness;
useRocketMqHarness((c, h) => {
  cluster = c;
  harness = h;
});

/** One row of `mqadmin queryMsgTraceById`: type, group, client host, time, cost, status (printf %-10s %-20s ...). */
interface TraceRow {
  readonly type: string;
  readonly group: string;
  readonly clientHost: string;
  readonly costMs: number;
  readonly status: string;
}

function traceRows(out: string): TraceRow[] {
  const rows: TraceRow[] = [];
  for (const m of out.matchAll(
    /^(Pub|Sub)\s+(\S+)\s+(\S+)\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\s+(\d+)ms\s+(\S+)\s*$/gm,
  )) {
    rows.push({ type: m[1]!, group: m[2]!, clientHost: m[3]!, costMs: Number(m[4]), status: m[5]! });
  }
  return rows;
}

/** RocketMQ's own reader of trace records, retried until `done` (the broker indexes keys a moment after storing). */
async function queryTrace(
  msgId: string,
  done: (rows: TraceRow[]) => boolean,
  traceTopic?: string,
): Promise<{ out: string; rows: TraceRow[] }> {
  let last = { out: '', rows: [] as TraceRow[] };
  await waitFor(
    async () => {
      const out = await mqadmin([
        'queryMsgTraceById',
        '-n',
        cluster.namesrvAddr,
        '-i',
        msgId,
        ...(traceTopic ? ['-t', traceTopic] : []),
      ]);
      last = { out, rows: traceRows(out) };
      return done(last.rows);
    },
    { timeoutMs: 90_000, intervalMs: 1_000, message: () => `trace rows of ${msgId}: ${last.out}` },
  );
  if (process.env.MQKIT_PRINT_TRACE)
    process.stdout.write(`\n$ mqadmin queryMsgTraceById -n ${cluster.namesrvAddr} -i ${msgId}\n${last.out}\n`);
  return last;
}

describe('message trace on a real cluster (traceTopicEnable=true), read by mqadmin queryMsgTraceById', () => {
  it('a traced producer and a traced consumer app: the Pub row and a Sub row per delivery, with group, client host, cost and status', async () => {
    const topic = uniqueName('trace');
    const group = uniqueName('g');
    const producerGroup = uniqueName('p');
    await harness.createTopic(topic, 2);
    let failed = false;
    const consumed = new Set<string>();
    const app = await harness.app(
      [
        consumerClass({ group, topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' }, (m: Message) => {
          if (m.body.toString() === 'fail-once' && !failed) {
            failed = true;
            throw new Error('first delivery fails');
          }
          consumed.add(m.body.toString());
        }),
      ],
      { enableMsgTrace: true },
    );
    const producer = await createProducer({
      transport: harness.transport(),
      group: producerGroup,
      profile: 'fast',
      sendMsgTimeout: 10_000,
      enableMsgTrace: true,
    });
    const ok = await producer.send({ topic, body: 'ok', tags: 'A', keys: 'order-1' });
    const retried = await producer.send({ topic, body: 'fail-once' });
    await waitFor(() => consumed.size === 2, { timeoutMs: 60_000 });
    // Stopping sends the records still queued (the dispatcher flushes a partial batch every 5 s otherwise).
    await producer.stop();
    await app.stop({ timeoutMs: 10_000 });
    expect(producer.traceStatus()).toMatchObject({ traceTopic: RMQ_SYS_TRACE_TOPIC, sent: 2, dropped: 0, failed: 0 });
    expect(app.status().trace).toEqual([
      expect.objectContaining({ traceTopic: RMQ_SYS_TRACE_TOPIC, sent: 6, dropped: 0, failed: 0, queued: 0 }),
    ]);

    const first = await queryTrace(
      ok.msgId,
      (rows) => rows.some((r) => r.type === 'Pub') && rows.some((r) => r.type === 'Sub'),
    );
    const pub = first.rows.find((r) => r.type === 'Pub')!;
    // The client host is the born host of the trace message: this client's address as the broker saw it.
    expect(pub).toMatchObject({ group: producerGroup, clientHost: '127.0.0.1', status: 'success' });
    expect(pub.costMs).toBeLessThan(10_000);
    expect(first.rows.filter((r) => r.type === 'Sub')).toEqual([
      expect.objectContaining({ group, clientHost: '127.0.0.1', status: 'success' }),
    ]);
    expect(first.out).toMatch(/#Type\s+#ProducerGroup\s+#ClientHost\s+#SendTime\s+#CostTimes\s+#Status/);
    expect(first.out).toMatch(/#Type\s+#ConsumerGroup\s+#ClientHost\s+#ConsumerTime\s+#CostTimes\s+#Status/);

    // A delivery that threw, then its retry: two Sub rows, failed and success.
    const second = await queryTrace(
      retried.msgId,
      (rows) => rows.filter((r) => r.type === 'Sub').length >= 2 && rows.some((r) => r.type === 'Pub'),
    );
    expect(
      second.rows
        .filter((r) => r.type === 'Sub')
        .map((r) => r.status)
        .sort(),
    ).toEqual(['failed', 'success']);
    expect(second.rows.filter((r) => r.type === 'Sub').every((r) => r.group === group)).toBe(true);
  }, 240_000);

  it('customizedTraceTopic: records go to that topic, and `-t` reads them there', async () => {
    const topic = uniqueName('trace');
    const traceTopic = uniqueName('MY_TRACE');
    await harness.createTopic(topic, 1);
    await harness.createTopic(traceTopic, 1);
    const producerGroup = uniqueName('p');
    const producer = await createProducer({
      transport: harness.transport(),
      group: producerGroup,
      profile: 'fast',
      sendMsgTimeout: 10_000,
      enableMsgTrace: true,
      customizedTraceTopic: traceTopic,
    });
    const sent = await producer.send({ topic, body: 'x' });
    await producer.stop();
    expect(producer.traceStatus()).toMatchObject({ traceTopic, sent: 1, failed: 0 });
    const { rows } = await queryTrace(sent.msgId, (r) => r.some((row) => row.type === 'Pub'), traceTopic);
    expect(rows).toEqual([expect.objectContaining({ type: 'Pub', group: producerGroup, status: 'success' })]);
  }, 180_000);

  it('a tiny trace queue: dropped records are counted and reported, and every send still succeeds', async () => {
    const topic = uniqueName('trace');
    await harness.createTopic(topic, 2);
    // 20 contexts per flush never fill a queue of 1: the one queued waits for the interval, the rest is dropped.
    const producer = await createProducer({
      transport: harness.transport(),
      group: uniqueName('p'),
      profile: 'fast',
      sendMsgTimeout: 10_000,
      enableMsgTrace: true,
      traceQueueSize: 1,
      traceMsgBatchNum: 20,
    });
    const reports: MqkitEvents['trace.dropped'][] = [];
    producer.events.on('trace.dropped', (e) => reports.push(e));
    const results = [];
    for (let i = 0; i < 30; i++) results.push(await producer.send({ topic, body: `m${i}` }));
    expect(results.every((r) => r.status === 'SEND_OK')).toBe(true);
    const status = producer.traceStatus()!;
    expect(status.dropped).toBeGreaterThan(0);
    expect(status.dropped + status.queued + status.sending + status.sent).toBe(30);
    expect(reports.length).toBe(status.dropped);
    expect(reports.every((r) => r.reason === 'queue-full')).toBe(true);
    await producer.stop();
    expect(producer.traceStatus()).toMatchObject({ queued: 0, sending: 0, failed: 0 });
    expect(producer.traceStatus()!.sent + producer.traceStatus()!.dropped).toBe(30);
  }, 120_000);
});
