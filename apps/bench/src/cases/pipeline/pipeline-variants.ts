import { Consumer, createConsumerApp, EventBus, FAST_PROFILE, parseSubscription, PullStatus, type MessagePuller, type MessageQueue } from '@mqkit/core';
import { EmbeddedBroker, memoryTransport } from '@mqkit/transport-memory';
import { container } from 'tsyringe';
import { settleHeap, until } from '../bench-util';
import { observabilityPlugins, type Observability } from '../observability-plugins';
import { SteadyMeter } from '../../report/steady-meter';

export const TOPIC = 'BenchPipeline';
export const QUEUES = 8;
export const PULL_BATCH = 32;

/**
 * The four variants of `pipeline`, one per process: the engine with handler batches of 32 or one message per
 * call, and the ceiling of each mode, which is the same pull role and a handler of the same shape called in a
 * plain loop per queue (no process queue, no flow control, no offsets): what the engine could reach if it cost
 * nothing.
 */
export type PipelineVariant = 'batch' | 'one' | 'ceiling-batch' | 'ceiling-one';
export const VARIANTS: readonly PipelineVariant[] = ['batch', 'one', 'ceiling-batch', 'ceiling-one'];

export interface VariantSettings {
  readonly variant: PipelineVariant;
  readonly messages: number;
  readonly size: number;
  readonly observe: readonly Observability[];
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

async function runEngine(settings: VariantSettings, batchSize: number): Promise<SteadyMeter> {
  const broker = filledBroker(settings.messages, settings.size);
  const scope = container.createChildContainer();
  const meter = new SteadyMeter(settings.messages);
  scope.register(SteadyMeter, { useValue: meter });
  const common = { group: `bench-pipeline-${batchSize}`, topic: TOPIC, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', pullBatchSize: PULL_BATCH, consumeThreadMin: 20, consumeThreadMax: 20, consumeMessageBatchMaxSize: batchSize } as const;
  class BatchHandler {
    constructor(private readonly m: SteadyMeter) {}
    async handle(batch: unknown[]): Promise<void> {
      this.m.add(batch.length);
    }
  }
  class OneHandler {
    constructor(private readonly m: SteadyMeter) {}
    async handle(): Promise<void> {
      this.m.add(1);
    }
  }
  const handler = batchSize > 1 ? BatchHandler : OneHandler;
  Reflect.defineMetadata('design:paramtypes', [SteadyMeter], handler);
  Consumer({ ...common, batch: batchSize > 1 })(handler);
  const observed = observabilityPlugins(settings.observe);
  const app = await createConsumerApp({ transport: memoryTransport({ broker }), consumers: [handler], container: scope, maxCachedBytes: 1024 * 1024 * 1024, plugins: observed.plugins });
  // The meter's clock starts here, at start(): the total rate includes start-up, the steady one does not.
  meter.begin();
  await app.start();
  await until(() => meter.done, 2);
  await app.stop();
  broker.close();
  // With tracing on, every handler call must have produced a span: a cost measured without them would flatter it.
  const spans = await observed.spans();
  if (settings.observe.includes('tracing') && spans < settings.messages / batchSize) throw new Error(`tracing exported ${spans} spans for ${settings.messages / batchSize} calls`);
  return meter;
}

async function runCeiling(settings: VariantSettings, batchSize: number): Promise<SteadyMeter> {
  const broker = filledBroker(settings.messages, settings.size);
  const transport = await memoryTransport({ broker }).connect({ clientId: '127.0.0.1@ceiling', profile: FAST_PROFILE, events: new EventBus() });
  const puller: MessagePuller = transport.puller;
  const subscription = parseSubscription(TOPIC, '*');
  const signal = new AbortController().signal;
  const meter = new SteadyMeter(settings.messages);
  const one = async (_m: unknown): Promise<void> => meter.add(1);
  const batch = async (messages: readonly unknown[]): Promise<void> => meter.add(messages.length);
  await Promise.all(
    Array.from({ length: QUEUES }, async (_, queueId) => {
      const mq: MessageQueue = { topic: TOPIC, brokerName: 'broker-a', queueId };
      let offset = 0;
      for (;;) {
        const r = await puller.pull({ group: 'ceiling', mq, offset, maxMsgs: PULL_BATCH, maxBytes: 256 * 1024, subscription, suspendMs: 1, timeoutMs: 30_000 }, signal);
        if (r.status !== PullStatus.FOUND) break;
        if (batchSize > 1) await batch(r.messages);
        else for (const m of r.messages) await one(m);
        offset = r.nextBeginOffset;
      }
    }),
  );
  await transport.close();
  broker.close();
  if (meter.count !== settings.messages) throw new Error(`ceiling read ${meter.count} of ${settings.messages}`);
  return meter;
}

/** Runs one variant in this process. */
export function runVariant(settings: VariantSettings): Promise<SteadyMeter> {
  switch (settings.variant) {
    case 'batch':
      return runEngine(settings, PULL_BATCH);
    case 'one':
      return runEngine(settings, 1);
    case 'ceiling-batch':
      return runCeiling(settings, PULL_BATCH);
    case 'ceiling-one':
      return runCeiling(settings, 1);
  }
}
