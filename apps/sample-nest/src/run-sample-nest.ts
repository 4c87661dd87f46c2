import { MqkitConsumers, MqkitProducer } from '@mqkit/nestjs';
import { EmbeddedBroker, memoryTransport } from '@mqkit/transport-memory';
import { rocketmqTransport } from '@mqkit/transport-rocketmq';
import { NestFactory } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import { ensureTopics } from './ensure-topics';
import { OrderLedger } from './order-ledger.service';
import type { SampleNestOptions } from './sample-nest-options';
import type { SampleRuntimeOptions } from './sample-runtime-options';
import { SampleModule } from './sample.module';
import { ORDERS_TOPIC, SHIPMENTS_TOPIC } from './sample-topics';
import { SummaryReporter, type SampleNestSummary } from './summary.reporter';

/**
 * Boots the Nest application on a fresh embedded broker (or the `--namesrv` cluster), produces the orders through
 * the injected MqkitProducer and, unless `serve`, closes the app once every order has shipped. Resolves with the summary (printed on stdout
 * by SummaryReporter when the app closes); with `serve`, the app stays up until a signal closes it.
 */
export async function runSampleNest(
  options: SampleNestOptions,
  progress: (line: string) => void,
): Promise<SampleNestSummary | undefined> {
  const broker = options.namesrv ? undefined : new EmbeddedBroker();
  const transport = broker ? memoryTransport({ broker }) : rocketmqTransport({ nameServer: options.namesrv! });
  if (broker) for (const topic of [ORDERS_TOPIC, SHIPMENTS_TOPIC]) broker.createTopic({ topic, queues: 4 });
  else await ensureTopics(transport, [ORDERS_TOPIC, SHIPMENTS_TOPIC], 4);
  const runId = randomUUID().slice(0, 8);
  const runtime: SampleRuntimeOptions = { ...options, transport, broker, runId, startedAt: Date.now(), produced: 0 };
  const app = await NestFactory.createApplicationContext(SampleModule.register(runtime), { logger: ['warn', 'error'] });
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  await app.init(); // onApplicationBootstrap: the consumers start here
  const ledger = app.get(OrderLedger);
  const consumers = app.get(MqkitConsumers);
  const producer = app.get(MqkitProducer);
  const timer = setInterval(
    () =>
      progress(
        `ready ${consumers.ready}  produced ${runtime.produced}/${options.messages}  billed ${ledger.billed}  shipped ${ledger.shipped.size}`,
      ),
    200,
  );
  try {
    // A FIFO window of 256 sends: awaiting the oldest is O(1) (racing every pending send would not be).
    const window: Promise<unknown>[] = [];
    for (let seq = 0; seq < options.messages; seq++) {
      window.push(
        producer
          .send({ topic: ORDERS_TOPIC, payload: { seq, item: `item-${seq % 97}`, run: runId }, keys: `order-${seq}` })
          .then(() => runtime.produced++),
      );
      if (window.length >= 256) await window.shift();
    }
    await Promise.all(window);
    process.stderr.write(`mqkit sample-nest: produced ${runtime.produced} orders\n`);
    if (options.serve) return undefined; // Nest's shutdown hooks close the app on SIGTERM/SIGINT
    await ledger.whenShipped(options.messages);
  } finally {
    if (!options.serve) clearInterval(timer);
    else process.once('beforeExit', () => clearInterval(timer));
  }
  await app.close();
  return app.get(SummaryReporter).summary;
}
