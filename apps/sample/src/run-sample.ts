import { createAdmin, createConsumerApp, createProducer, type ConsumerApp, type TransportPlugin } from '@mqkit/core';
import { rocketmqTransport } from '@mqkit/transport-rocketmq';
import { randomUUID } from 'node:crypto';
import { EmbeddedBroker, memoryTransport } from '@mqkit/transport-memory';
import { container } from 'tsyringe';
import { InstanceStats } from './instance-stats';
import { OrderConsumer, SAMPLE_TOPIC, type OrderEvent } from './order.consumer';
import type { SampleOptions } from './sample-options';

/** The one line the sample prints on stdout. */
export interface SampleSummary {
  readonly produced: number;
  readonly consumed: number;
  readonly unique: number;
  readonly duplicates: number;
  readonly lost: number;
  readonly rebalances: number;
  readonly elapsedMs: number;
}

interface Instance {
  readonly name: string;
  readonly app: ConsumerApp;
  readonly stats: InstanceStats;
  stopped: boolean;
}

/**
 * The README's main job: a producer and a group of consumer instances of one @Consumer class; one more instance
 * joins a third of the way through and the first one leaves at two thirds. Counts what every instance consumed.
 */
export async function runSample(
  options: SampleOptions,
  progress: (line: string) => void = () => undefined,
): Promise<SampleSummary> {
  const started = Date.now();
  const broker = options.namesrv ? undefined : new EmbeddedBroker();
  const transport = (): TransportPlugin =>
    broker ? memoryTransport({ broker }) : rocketmqTransport({ nameServer: options.namesrv! });
  // On a real cluster the topic outlives the run: only this run's messages are counted.
  const runId = randomUUID().slice(0, 8);
  const deliveries = new Map<number, number>();
  const instances: Instance[] = [];
  // Member lists for which some instance saw its assignment change; a membership change counts as a rebalance
  // when an instance saw the new member list change what it owns.
  const changedUnder = new Set<string>();
  const membershipChanges: string[] = [];

  const startInstance = async (name: string): Promise<Instance> => {
    const stats = new InstanceStats(name, deliveries, runId);
    const scope = container.createChildContainer();
    scope.register(InstanceStats, { useValue: stats });
    const app = await createConsumerApp({
      transport: transport(),
      consumers: [OrderConsumer],
      container: scope,
      instanceName: `sample-${name}`,
    });
    app.on('consumer.rebalance', (e) => {
      if (e.added.length + e.removed.length > 0) changedUnder.add([...e.cidAll].join(','));
    });
    await app.start();
    const instance: Instance = { name, app, stats, stopped: false };
    instances.push(instance);
    return instance;
  };

  const producer = await createProducer({ transport: transport(), group: 'sample-producer' });
  // Eight queues on every broker: the embedded one, or each master of the real cluster.
  const admin = await createAdmin({ transport: transport() });
  let queueCount: number;
  try {
    await admin.createTopic({ topic: SAMPLE_TOPIC, queues: 8 });
    queueCount = (await admin.queues(SAMPLE_TOPIC)).length;
  } finally {
    await admin.close();
  }

  for (let i = 1; i <= options.instances; i++) await startInstance(`${i}`);
  await waitForStableGroup(instances, options.instances, queueCount);

  let produced = 0;
  const body = 'x'.repeat(Math.max(0, options.size - 64));
  const produceMs = (options.messages / options.rate) * 1000;
  const report = (): void => progress(progressLine(started, produced, options.messages, instances));
  const ticker = setInterval(report, 250);
  try {
    const joinAt = Math.floor(options.messages / 3);
    const leaveAt = Math.floor((2 * options.messages) / 3);
    const sendStart = Date.now();
    const inFlight: Promise<void>[] = [];
    for (let seq = 0; seq < options.messages; seq++) {
      if (seq === joinAt) {
        await startInstance(`${options.instances + 1}`);
        membershipChanges.push(memberList(instances));
      }
      if (seq === leaveAt) {
        const leaving = instances[0]!;
        leaving.stopped = true;
        await leaving.app.stop({ timeoutMs: 10_000 });
        membershipChanges.push(memberList(instances));
      }
      const order: OrderEvent = { run: runId, seq, customer: `c-${seq % 97}`, amount: seq % 1000, note: body };
      const p = producer
        .send({ topic: SAMPLE_TOPIC, payload: order, tags: seq % 2 === 0 ? 'created' : 'paid', keys: `order-${seq}` })
        .then(() => void produced++);
      inFlight.push(p);
      // Pace the producer so the group changes happen while messages flow.
      const due = sendStart + ((seq + 1) / options.messages) * produceMs;
      if (due > Date.now() + 5) await new Promise((r) => setTimeout(r, due - Date.now()));
      if (inFlight.length >= 256) await inFlight.shift(); // the oldest send: sends complete in order
    }
    await Promise.all(inFlight);
    const deadline = Date.now() + 20_000 + produceMs;
    while (deliveries.size < produced && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  } finally {
    clearInterval(ticker);
    report();
    await Promise.all(instances.filter((i) => !i.stopped).map((i) => i.app.stop({ timeoutMs: 10_000 })));
    await producer.stop();
    broker?.close();
  }
  const consumed = instances.reduce((n, i) => n + i.stats.consumed, 0);
  const unique = deliveries.size;
  return {
    produced,
    consumed,
    unique,
    duplicates: consumed - unique,
    lost: produced - unique,
    rebalances: membershipChanges.filter((m) => changedUnder.has(m)).length,
    elapsedMs: Date.now() - started,
  };
}

function memberList(instances: readonly Instance[]): string {
  return instances
    .filter((i) => !i.stopped)
    .map((i) => i.app.clientId)
    .sort()
    .join(',');
}

/** Waits until every initial member owns queues and the topic's queues are all owned exactly once. */
async function waitForStableGroup(instances: readonly Instance[], expected: number, queueCount: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const owned = instances.flatMap((i) =>
      i.app
        .status()
        .consumers.flatMap((c) => c.queues.filter((q) => q.mq.topic === SAMPLE_TOPIC && q.state === 'active')),
    );
    if (
      instances.length === expected &&
      owned.length === queueCount &&
      new Set(owned.map((q) => `${q.mq.brokerName}#${q.mq.queueId}`)).size === queueCount
    )
      return;
    if (Date.now() > deadline) throw new Error('the initial group did not settle within 30 s');
    await new Promise((r) => setTimeout(r, 20));
  }
}

function progressLine(started: number, produced: number, total: number, instances: readonly Instance[]): string {
  const parts = instances.map((i) => {
    if (i.stopped) return `#${i.name}: left after ${i.stats.consumed}`;
    const status = i.app.status().consumers[0];
    const queues = status?.queues.filter((q) => q.mq.topic === SAMPLE_TOPIC && q.state === 'active').length ?? 0;
    return `#${i.name}: ${i.stats.consumed} consumed, ${queues} queues, lag ${status?.lag ?? 0}`;
  });
  return `${((Date.now() - started) / 1000).toFixed(1)}s produced ${produced}/${total} | ${parts.join(' | ')}`;
}
