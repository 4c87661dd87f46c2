import { Consumer, createConsumerApp } from '@mqkit/core';
import { EmbeddedBroker, memoryTransport } from '@mqkit/transport-memory';
import type { BenchCase } from './bench-case';
import { flag, log, peakRssMb, settleHeap, until } from './bench-util';

const TOPIC = 'BenchBacklog';
const QUEUES = 8;

/**
 * Memory under a backlog: 200,000 x 1 KiB already stored, a slow handler (1 ms per message), per-queue limits far
 * above the app budget, so the app-wide byte budget is what holds memory. Cached bytes (the sum over every process
 * queue) are sampled after every put, i.e. at each moment they grow.
 */
export const backlogCase: BenchCase = {
  name: 'backlog',
  embedded: true,
  description: 'peak cached bytes under a backlog with a slow handler, against the app byte budget',
  async run(args) {
    const count = flag(args, 'messages', 200_000);
    const size = flag(args, 'size', 1024);
    const limitBytes = flag(args, 'budget', 4 * 1024 * 1024);
    log(
      `settings: ${count} x ${size} B stored first, ${QUEUES} queues, pullThresholdForQueue 65535, pullThresholdSizeForQueue 1 MiB, app budget ${limitBytes} B, handler 1 ms per message, consumeThreadMax 20`,
    );
    const broker = new EmbeddedBroker();
    broker.createTopic({ topic: TOPIC, queues: QUEUES });
    const body = Buffer.alloc(size, 0x62);
    for (let i = 0; i < count; i++) {
      broker.send(
        { topic: TOPIC, brokerName: 'broker-a', queueId: i % QUEUES },
        { topic: TOPIC, body, flag: 0, properties: { UNIQ_KEY: `B${i}` }, sysFlag: 0, bornTimestamp: Date.now() },
      );
    }
    settleHeap();
    let done = 0;
    class SlowHandler {
      async handle(): Promise<void> {
        await new Promise((r) => setTimeout(r, 1));
        done++;
      }
    }
    Consumer({
      group: 'bench-backlog',
      topic: TOPIC,
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      pullThresholdForQueue: 65535,
      pullThresholdSizeForQueue: 1,
    })(SlowHandler);
    const app = await createConsumerApp({
      transport: memoryTransport({ broker }),
      consumers: [SlowHandler],
      maxCachedBytes: limitBytes,
    });
    let peakCachedBytes = 0;
    app.on('consumer.pull', () => {
      let cached = 0;
      for (const c of app.status().consumers) for (const q of c.queues) cached += q.cachedBytes;
      if (cached > peakCachedBytes) peakCachedBytes = cached;
    });
    const t0 = Date.now();
    await app.start();
    await until(() => done >= count, 20);
    const seconds = (Date.now() - t0) / 1000;
    await app.stop();
    broker.close();
    log(
      `consumed ${count} in ${seconds.toFixed(1)} s; peak cached ${peakCachedBytes} B vs budget ${limitBytes} B (one message: ${size} B)`,
    );
    return {
      peakCachedBytes,
      limitBytes,
      messageBytes: size,
      withinBudget: peakCachedBytes <= limitBytes + size,
      peakRssMb: peakRssMb(),
    };
  },
  tableRow(file) {
    const r = file.result as {
      peakCachedBytes: number;
      limitBytes: number;
      messageBytes: number;
      withinBudget: boolean;
      peakRssMb: number;
    };
    return {
      measured: file.settings[0]?.replace(/^settings: /, '') ?? '',
      result: `peak cached **${r.peakCachedBytes.toLocaleString('en-US')} B** against the ${r.limitBytes.toLocaleString('en-US')} B budget; peak RSS ${r.peakRssMb} MB`,
      target: `at most the budget + one message (${r.messageBytes} B): ${r.withinBudget ? 'met' : 'missed'}`,
    };
  },
};
