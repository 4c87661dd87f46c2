import { Consumer, createConsumerApp, EventBus, FAST_PROFILE, PullStatus, type MessagePuller, type MessageQueue } from '@mqkit/core';
import { parseSubscription } from '@mqkit/core';
import { EmbeddedBroker, memoryTransport } from '@mqkit/transport-memory';
import { container } from 'tsyringe';
import type { BenchCase } from './bench-case';
import { flag, log, median, peakRssMb, settleHeap, until } from './bench-util';
import { observabilityPlugins, parseWith, type Observability } from './observability-plugins';

const TOPIC = 'BenchPipeline';
const QUEUES = 8;

class Counter {
  n = 0;
}

/** Fills a fresh broker with `count` messages of `size` bytes over 8 queues, before any timing. */
function filledBroker(count: number, size: number): EmbeddedBroker {
  const broker = new EmbeddedBroker({ defaultQueueNums: QUEUES });
  broker.createTopic({ topic: TOPIC, queues: QUEUES });
  const body = Buffer.alloc(size, 0x61);
  for (let i = 0; i < count; i++) {
    broker.send({ topic: TOPIC, brokerName: 'broker-a', queueId: i % QUEUES }, { topic: TOPIC, body, flag: 0, properties: { UNIQ_KEY: `K${i}` }, sysFlag: 0, bornTimestamp: Date.now() });
  }
  settleHeap();
  return broker;
}

async function runEngine(count: number, size: number, batchSize: number, round: number, observe: readonly Observability[] = []): Promise<number> {
  const broker = filledBroker(count, size);
  const counter = new Counter();
  const scope = container.createChildContainer();
  scope.register(Counter, { useValue: counter });
  const group = `bench-pipeline-${batchSize}-${round}`;
  const common = { group, topic: TOPIC, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', pullBatchSize: 32, consumeThreadMin: 20, consumeThreadMax: 20, consumeMessageBatchMaxSize: batchSize } as const;
  class BatchHandler {
    constructor(private readonly c: Counter) {}
    async handle(batch: unknown[]): Promise<void> {
      this.c.n += batch.length;
    }
  }
  class OneHandler {
    constructor(private readonly c: Counter) {}
    async handle(): Promise<void> {
      this.c.n++;
    }
  }
  const handler = batchSize > 1 ? BatchHandler : OneHandler;
  Reflect.defineMetadata('design:paramtypes', [Counter], handler);
  Consumer({ ...common, batch: batchSize > 1 })(handler);
  const observed = observabilityPlugins(observe);
  const app = await createConsumerApp({ transport: memoryTransport({ broker }), consumers: [handler], container: scope, maxCachedBytes: 1024 * 1024 * 1024, plugins: observed.plugins });
  const t0 = process.hrtime.bigint();
  await app.start();
  await until(() => counter.n >= count, 2);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  await app.stop();
  broker.close();
  // With tracing on, every handler call must have produced a span: a cost measured without them would flatter it.
  const spans = await observed.spans();
  if (observe.includes('tracing') && spans < count / batchSize) throw new Error(`tracing exported ${spans} spans for ${count / batchSize} calls`);
  return count / seconds;
}

/** The ceiling: the same pull role and handler, messages handed over one after another, nothing else. */
async function runCeiling(count: number, size: number, round: number): Promise<number> {
  const broker = filledBroker(count, size);
  const transport = await memoryTransport({ broker }).connect({ clientId: `127.0.0.1@ceiling-${round}`, profile: FAST_PROFILE, events: new EventBus() });
  const puller: MessagePuller = transport.puller;
  let n = 0;
  const handle = async (_m: unknown): Promise<void> => {
    n++;
  };
  const subscription = parseSubscription(TOPIC, '*');
  const signal = new AbortController().signal;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: QUEUES }, async (_, queueId) => {
      const mq: MessageQueue = { topic: TOPIC, brokerName: 'broker-a', queueId };
      let offset = 0;
      for (;;) {
        const r = await puller.pull({ group: 'ceiling', mq, offset, maxMsgs: 32, maxBytes: 256 * 1024, subscription, suspendMs: 1, timeoutMs: 30_000 }, signal);
        if (r.status !== PullStatus.FOUND) break;
        for (const m of r.messages) await handle(m);
        offset = r.nextBeginOffset;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  await transport.close();
  broker.close();
  if (n !== count) throw new Error(`ceiling read ${n} of ${count}`);
  return count / seconds;
}

export const pipelineCase: BenchCase = {
  name: 'pipeline',
  embedded: true,
  description: 'consume throughput of the engine on the embedded broker (1M x 100 B stored before timing)',
  async run(args) {
    const count = flag(args, 'messages', 1_000_000);
    const size = flag(args, 'size', 100);
    const rounds = flag(args, 'rounds', 3);
    const observe = parseWith(args);
    log(`settings: ${count} messages x ${size} B, ${QUEUES} queues, pullBatchSize 32, consumeThreadMax 20, no-op async handler, ${rounds} rounds (median)${observe.length > 0 ? `, with ${observe.join(' and ')} on` : ''}`);
    const batch: number[] = [];
    const single: number[] = [];
    const ceiling: number[] = [];
    for (let r = 0; r < rounds; r++) {
      batch.push(await runEngine(count, size, 32, r, observe));
      single.push(await runEngine(count, size, 1, r, observe));
      ceiling.push(await runCeiling(count, size, r));
      log(`round ${r + 1}: batch32 ${Math.round(batch[r]!)} msg/s, batch1 ${Math.round(single[r]!)} msg/s, ceiling ${Math.round(ceiling[r]!)} msg/s`);
    }
    const msgsPerSec = Math.round(median(batch));
    const ceilingMsgsPerSec = Math.round(median(ceiling));
    return { msgsPerSec, batch1MsgsPerSec: Math.round(median(single)), ceilingMsgsPerSec, ratio: Math.round((msgsPerSec / ceilingMsgsPerSec) * 100) / 100, peakRssMb: peakRssMb() };
  },
};
