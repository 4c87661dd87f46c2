import { Consumer, createAdmin, createConsumerApp, createProducer, type Admin, type ConsumerApp } from '@mqkit/core';
import { rocketmqTransport } from '@mqkit/transport-rocketmq';
import { uniqueName } from '@mqkit/core/testing';
import { clearPlacement, pinServers } from './cpu-placement';
import { planStorePlacement } from './store-placement';
import {
  startRocketMqCluster,
  type RocketMqCluster,
  type RocketMqClusterOptions,
} from '@mqkit/transport-rocketmq/testing';

/**
 * A RocketMQ cluster of the bench's own, through the test harness (Java 17+ and Maven needed; the first run
 * downloads RocketMQ into ~/.cache/mqkit), with an admin client for topics and a reader of the brokers' max offsets.
 */
export class BenchCluster {
  private constructor(
    readonly cluster: RocketMqCluster,
    private readonly admin: Admin,
    private readonly probe: ConsumerApp,
  ) {}

  static async start(options: RocketMqClusterOptions, log: (line: string) => void): Promise<BenchCluster> {
    const started = Date.now();
    // A caller's own tmpDir wins; otherwise the store goes where planStorePlacement says (tmpfs when there is one).
    const store = options.tmpDir
      ? { dir: options.tmpDir, describe: `cluster files under ${options.tmpDir}` }
      : planStorePlacement();
    const cluster = await startRocketMqCluster({ ...options, tmpDir: store.dir });
    log(
      `RocketMQ ${cluster.version} cluster at ${cluster.namesrvAddr} (${cluster.brokers.map((b) => b.name).join(', ')}) ready in ${Date.now() - started} ms`,
    );
    try {
      log(`settings: ${store.describe}`);
      log(`settings: ${pinServers(cluster.pids())}`);
      const admin = await createAdmin({
        transport: rocketmqTransport({ nameServer: cluster.namesrvAddr }),
        instanceName: uniqueName('benchAdmin'),
      });
      const probe = await createConsumerApp({
        transport: rocketmqTransport({ nameServer: cluster.namesrvAddr }),
        consumers: [],
        instanceName: uniqueName('benchProbe'),
      });
      await probe.start();
      return new BenchCluster(cluster, admin, probe);
    } catch (error) {
      clearPlacement();
      await cluster.stop();
      throw error;
    }
  }

  get namesrvAddr(): string {
    return this.cluster.namesrvAddr;
  }

  /** A fresh topic with `queues` queues on every broker, routed before this resolves. */
  async createTopic(prefix: string, queues: number): Promise<string> {
    const topic = uniqueName(prefix);
    await this.admin.createTopic({ topic, queues });
    return topic;
  }

  /** Messages stored in the topic: the sum of its queues' max offsets (fresh topics start at 0). */
  async stored(topic: string): Promise<number> {
    const routes = this.probe.transport.routes;
    const offsets = this.probe.transport.offsets;
    let total = 0;
    for (const mq of await routes.subscribeQueues(topic)) total += await offsets.maxOffset(mq);
    return total;
  }

  /**
   * Stores `count` messages of `size` bytes in the topic before any timing, as batches of 32 (SEND_BATCH_MESSAGE,
   * one queue per batch, round robin) with 8 batches in flight; resolves with the elapsed ms.
   */
  async fill(topic: string, count: number, size: number): Promise<number> {
    const started = Date.now();
    const producer = await createProducer({
      transport: rocketmqTransport({ nameServer: this.namesrvAddr }),
      group: uniqueName('benchFill'),
      sendMsgTimeout: 30_000,
    });
    const body = Buffer.alloc(size, 0x61);
    try {
      const window: Promise<unknown>[] = [];
      for (let sent = 0; sent < count; sent += 32) {
        const n = Math.min(32, count - sent);
        window.push(producer.sendBatch(Array.from({ length: n }, () => ({ topic, body }))));
        if (window.length >= 8) await window.shift();
      }
      await Promise.all(window);
    } finally {
      await producer.stop();
    }
    return Date.now() - started;
  }

  /**
   * Untimed warm-up of the broker's send path (a fresh broker's first thousands of sends are slow: JIT, new commit
   * log files), so the first timed run is not penalised: `count` single sends, 256 in flight; failures only counted.
   */
  async warmSends(topic: string, count: number, size: number): Promise<{ ms: number; failed: number }> {
    const started = Date.now();
    const producer = await createProducer({
      transport: rocketmqTransport({ nameServer: this.namesrvAddr }),
      group: uniqueName('benchWarm'),
    });
    const body = Buffer.alloc(size, 0x77);
    let failed = 0;
    try {
      const window: Promise<unknown>[] = [];
      for (let i = 0; i < count; i++) {
        window.push(producer.send({ topic, body }).catch(() => failed++));
        if (window.length >= 256) await window.shift();
      }
      await Promise.all(window);
    } finally {
      await producer.stop();
    }
    return { ms: Date.now() - started, failed };
  }

  /** Untimed warm-up of the broker's pull path: a throwaway group reads `count` messages of the topic here. */
  async warmReads(topic: string, count: number): Promise<number> {
    const started = Date.now();
    let read = 0;
    class WarmUpHandler {
      handle(): void {
        read++;
      }
    }
    Consumer({ group: uniqueName('benchWarm'), topic, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' })(WarmUpHandler);
    const app = await createConsumerApp({
      transport: rocketmqTransport({ nameServer: this.namesrvAddr }),
      consumers: [WarmUpHandler],
      instanceName: uniqueName('benchWarm'),
    });
    await app.start();
    try {
      const deadline = Date.now() + 120_000;
      while (read < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    } finally {
      await app.stop({ timeoutMs: 5_000 });
    }
    return Date.now() - started;
  }

  async stop(): Promise<void> {
    await this.probe.stop({ timeoutMs: 5_000 }).catch(() => undefined);
    await this.admin.close().catch(() => undefined);
    await this.cluster.stop();
    clearPlacement();
  }
}
