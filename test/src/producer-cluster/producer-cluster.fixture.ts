import {
  createConsumerApp,
  createProducer,
  type ConsumerApp,
  type SendResult,
  type StandaloneProducerOptions,
  type TransportPlugin,
} from '@mqkit/core';
import { rocketmqTransport } from '@mqkit/transport-rocketmq';
import {
  CLUSTER_FILE_ENV,
  NAMESRV_ENV,
  createTopic,
  rocketMqTestCluster,
  startRocketMqCluster,
  type RocketMqCluster,
} from '@mqkit/transport-rocketmq/testing';
import { uniqueName } from '@mqkit/core/testing';

/**
 * The cluster a producer-cluster file runs on: the run's shared cluster when the RocketMQ global setup started one
 * (or `MQKIT_ROCKETMQ_NAMESRV` names one), else a cluster of its own (name server + broker-a + broker-b) that
 * `release()` stops.
 */
export async function producerCluster(): Promise<{ cluster: RocketMqCluster; release(): Promise<void> }> {
  if (process.env[CLUSTER_FILE_ENV] || process.env[NAMESRV_ENV])
    return { cluster: await rocketMqTestCluster(), release: async () => undefined };
  const cluster = await startRocketMqCluster();
  return { cluster, release: () => cluster.stop() };
}

/** A transport to the cluster, with TLS and ACL when the cluster has them. */
export function transportFor(cluster: RocketMqCluster): TransportPlugin {
  return rocketmqTransport({
    nameServer: cluster.namesrvAddr,
    tls: cluster.tlsCertificate ? { ca: cluster.tlsCertificate } : undefined,
    credentials: cluster.acl,
  });
}

/** `broker:queueId` → messages stored (max offset; every topic here is fresh, so its min offset is 0). */
export type StoredCounts = Map<string, number>;

/**
 * Reads what the brokers stored, through an app with no consumers (its container holds the transport's roles):
 * max offsets per queue, asked of each broker. The truth about where sends landed, independent of send results.
 */
export class BrokerProbe {
  private constructor(private readonly app: ConsumerApp) {}

  static async open(cluster: RocketMqCluster): Promise<BrokerProbe> {
    const app = await createConsumerApp({
      transport: transportFor(cluster),
      consumers: [],
      profile: 'fast',
      instanceName: uniqueName('probe'),
    });
    await app.start();
    return new BrokerProbe(app);
  }

  /** Stored messages of every queue of the topic's current route. */
  async stored(topic: string): Promise<StoredCounts> {
    const routes = this.app.transport.routes;
    const offsets = this.app.transport.offsets;
    routes.invalidate?.(topic);
    const counts: StoredCounts = new Map();
    for (const mq of await routes.subscribeQueues(topic))
      counts.set(`${mq.brokerName}:${mq.queueId}`, await offsets.maxOffset(mq));
    return counts;
  }

  async close(): Promise<void> {
    await this.app.stop({ timeoutMs: 5_000 });
  }
}

/** Messages stored per broker, summed over its queues. */
export function perBroker(counts: StoredCounts): Map<string, number> {
  const out = new Map<string, number>();
  for (const [key, n] of counts) {
    const broker = key.slice(0, key.lastIndexOf(':'));
    out.set(broker, (out.get(broker) ?? 0) + n);
  }
  return out;
}

/** A fresh topic with `queues` queues on every running broker of the cluster (autoCreateTopicEnable is off). */
export async function freshTopic(cluster: RocketMqCluster, prefix: string, queues = 4): Promise<string> {
  const topic = uniqueName(prefix);
  await createTopic(cluster, topic, { queues });
  return topic;
}

/** A started producer on the cluster with the fast profile (route refresh every 500 ms). */
export function clusterProducer(
  cluster: RocketMqCluster,
  options: Partial<StandaloneProducerOptions> = {},
): ReturnType<typeof createProducer> {
  return createProducer({
    transport: transportFor(cluster),
    group: uniqueName('producer'),
    profile: 'fast',
    ...options,
  });
}

/** One send as the test saw it: when it started and settled, and where it landed or why it failed. */
export interface SendRecord {
  readonly seq: number;
  readonly startedAt: number;
  readonly settledAt: number;
  readonly result?: SendResult;
  readonly error?: Error;
}

/**
 * Sends `{ seq }` messages one at a time (each awaited, as a single sender thread does) until `stop()`, recording
 * every outcome; failures are recorded, not thrown, so a test can assert on them.
 */
export class SendLoop {
  readonly records: SendRecord[] = [];
  private running = true;
  private readonly done: Promise<void>;

  constructor(send: (seq: number) => Promise<SendResult>) {
    this.done = (async () => {
      for (let seq = 0; this.running; seq++) {
        const startedAt = Date.now();
        try {
          const result = await send(seq);
          this.records.push({ seq, startedAt, settledAt: Date.now(), result });
        } catch (error) {
          this.records.push({ seq, startedAt, settledAt: Date.now(), error: error as Error });
        }
        // One macrotask between sends, so timers (route refresh, the test's own waits) keep running.
        await new Promise((r) => setImmediate(r));
      }
    })();
  }

  get succeeded(): SendRecord[] {
    return this.records.filter((r) => r.result);
  }

  get failed(): SendRecord[] {
    return this.records.filter((r) => r.error);
  }

  /** Results per broker name. */
  landedOn(broker: string, records: readonly SendRecord[] = this.records): number {
    return records.filter((r) => r.result?.messageQueue.brokerName === broker).length;
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.done;
  }
}
