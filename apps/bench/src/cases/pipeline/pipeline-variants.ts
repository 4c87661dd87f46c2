import {
  Consumer,
  createConsumerApp,
  EventBus,
  FAST_PROFILE,
  parseSubscription,
  PullStatus,
  type MessagePuller,
  type MessageQueue,
} from '@mqkit/core';
import { EmbeddedBroker, memoryTransport } from '@mqkit/transport-memory';
import { container } from 'tsyringe';
import { settleHeap, until } from '../bench-util';
import { observabilityPlugins, type Observability } from '../observability-plugins';
import { median, round } from '../../report/run-stats';
import { pooledSteadyRate, SteadyMeter } from '../../report/steady-meter';

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
  /** Untimed passes over the whole backlog first (the first pass of a fresh process runs at about half speed). */
  readonly warmups: number;
  /**
   * Timed passes over the same backlog, each with a fresh group (engine) or fresh loops (ceiling) from the first
   * offset, until their steady windows add up to this many seconds. One pass lasts 0.03-0.3 s, and two passes of
   * the same process differ by up to 40 % on this machine; pooled over seconds they agree.
   */
  readonly windowSec: number;
}

/** What a variant's process reports: the steady rate pooled over its timed passes, and per-pass start-up. */
export interface VariantResult {
  readonly steadyMsgsPerSec: number;
  readonly steadyWindowMs: number;
  /** Messages over the time from start() to the last message, summed over the timed passes. */
  readonly totalMsgsPerSec: number;
  /** Median over the timed passes of start() to the first message. */
  readonly firstMessageMs: number;
  readonly passes: number;
}

/** Fills a fresh broker with `count` messages of `size` bytes over 8 queues, before any timing. */
function filledBroker(count: number, size: number): EmbeddedBroker {
  const broker = new EmbeddedBroker({ defaultQueueNums: QUEUES });
  broker.createTopic({ topic: TOPIC, queues: QUEUES });
  const body = Buffer.alloc(size, 0x61);
  for (let i = 0; i < count; i++) {
    broker.send(
      { topic: TOPIC, brokerName: 'broker-a', queueId: i % QUEUES },
      { topic: TOPIC, body, flag: 0, properties: { UNIQ_KEY: `K${i}` }, sysFlag: 0, bornTimestamp: Date.now() },
    );
  }
  settleHeap();
  return broker;
}

/** The handler classes, one per mode, declared once so that warm-up and timed passes run the very same code. */
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

/** One pass of the engine over the whole backlog with a fresh group from the first offset, metered by `meter`. */
async function enginePass(
  broker: EmbeddedBroker,
  settings: VariantSettings,
  batchSize: number,
  group: string,
  meter: SteadyMeter,
): Promise<void> {
  const scope = container.createChildContainer();
  scope.register(SteadyMeter, { useValue: meter });
  // A subclass per pass carries this pass's @Consumer (its group); handle() is the one inherited function.
  const handler = batchSize > 1 ? class extends BatchHandler {} : class extends OneHandler {};
  Reflect.defineMetadata('design:paramtypes', [SteadyMeter], handler);
  Consumer({
    group,
    topic: TOPIC,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    pullBatchSize: PULL_BATCH,
    consumeThreadMin: 20,
    consumeThreadMax: 20,
    consumeMessageBatchMaxSize: batchSize,
    batch: batchSize > 1,
  })(handler);
  const observed = observabilityPlugins(settings.observe);
  const app = await createConsumerApp({
    transport: memoryTransport({ broker }),
    consumers: [handler],
    container: scope,
    maxCachedBytes: 1024 * 1024 * 1024,
    plugins: observed.plugins,
  });
  // The meter's clock starts here, at start(): the total rate includes start-up, the steady one does not.
  meter.begin();
  await app.start();
  await until(() => meter.done, 2);
  await app.stop();
  // With tracing on, every handler call must have produced a span: a cost measured without them would flatter it.
  const spans = await observed.spans();
  if (settings.observe.includes('tracing') && spans < settings.messages / batchSize)
    throw new Error(`tracing exported ${spans} spans for ${settings.messages / batchSize} calls`);
}

/**
 * Runs `warmups` untimed passes, then timed ones, each metered afresh, until their steady windows add up to
 * `windowSec`, and pools the timed ones.
 */
async function passes(
  settings: VariantSettings,
  pass: (name: string, meter: SteadyMeter) => Promise<void>,
): Promise<VariantResult> {
  for (let w = 0; w < settings.warmups; w++) {
    await pass(`warm-${w}`, new SteadyMeter(settings.messages));
    settleHeap();
  }
  const meters: SteadyMeter[] = [];
  for (let p = 0, windowNs = 0; windowNs < settings.windowSec * 1e9; p++) {
    const meter = new SteadyMeter(settings.messages);
    await pass(`timed-${p}`, meter);
    if (meter.count !== settings.messages) throw new Error(`pass ${p} read ${meter.count} of ${settings.messages}`);
    // A backlog smaller than a pull's batch steps over both marks at once: no window, and no end to this loop.
    if (meter.window().ns === 0)
      throw new Error(
        `a pass over ${settings.messages} messages has no steady window to time: use a larger --messages`,
      );
    meters.push(meter);
    windowNs += meter.window().ns;
  }
  const results = meters.map((m) => m.result());
  const elapsedMs = results.reduce((sum, r) => sum + r.elapsedMs, 0);
  return {
    ...pooledSteadyRate(meters),
    totalMsgsPerSec: Math.round((settings.messages * meters.length * 1000) / elapsedMs),
    firstMessageMs: round(median(results.map((r) => r.firstMessageMs)), 1),
    passes: meters.length,
  };
}

async function runEngine(settings: VariantSettings, batchSize: number): Promise<VariantResult> {
  const broker = filledBroker(settings.messages, settings.size);
  const result = await passes(settings, (name, meter) =>
    enginePass(broker, settings, batchSize, `bench-pipeline-${batchSize}-${name}`, meter),
  );
  broker.close();
  return result;
}

/** One pass of the ceiling over the whole backlog: a plain pull loop per queue from offset 0, handler inline. */
async function ceilingPass(puller: MessagePuller, batchSize: number, meter: SteadyMeter): Promise<void> {
  const subscription = parseSubscription(TOPIC, '*');
  const signal = new AbortController().signal;
  const one = async (_m: unknown): Promise<void> => meter.add(1);
  const batch = async (messages: readonly unknown[]): Promise<void> => meter.add(messages.length);
  await Promise.all(
    Array.from({ length: QUEUES }, async (_, queueId) => {
      const mq: MessageQueue = { topic: TOPIC, brokerName: 'broker-a', queueId };
      let offset = 0;
      for (;;) {
        const r = await puller.pull(
          {
            group: 'ceiling',
            mq,
            offset,
            maxMsgs: PULL_BATCH,
            maxBytes: 256 * 1024,
            subscription,
            suspendMs: 1,
            timeoutMs: 30_000,
          },
          signal,
        );
        if (r.status !== PullStatus.FOUND) break;
        if (batchSize > 1) await batch(r.messages);
        else for (const m of r.messages) await one(m);
        offset = r.nextBeginOffset;
      }
    }),
  );
}

async function runCeiling(settings: VariantSettings, batchSize: number): Promise<VariantResult> {
  const broker = filledBroker(settings.messages, settings.size);
  const transport = await memoryTransport({ broker }).connect({
    clientId: '127.0.0.1@ceiling',
    profile: FAST_PROFILE,
    events: new EventBus(),
  });
  const result = await passes(settings, async (_name, meter) => {
    meter.begin();
    await ceilingPass(transport.puller, batchSize, meter);
  });
  await transport.close();
  broker.close();
  return result;
}

/** Runs one variant in this process. */
export function runVariant(settings: VariantSettings): Promise<VariantResult> {
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
